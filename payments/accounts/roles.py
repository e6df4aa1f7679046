"""The roles an API key pair may hold (upstream's `Role`), and what each grants in this server's scopes.

Roles are fixed by the server, not rows: each has a stable id (a UUID derived from its slug), so a client may keep
role ids across installs. A key's power is the union of its roles' scopes; a token signed by the key acts with the
scopes it claims that its roles also grant (`effective_scopes`), never more.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

_NAMESPACE = uuid.UUID("0b7c1c2e-7f7e-4c52-9a35-4f6a1f0d2b61")
EMBED = "embed"
_VERBS = ("read", "write")

ADMINISTRATOR = "administrator"


@dataclass(frozen=True)
class Role:
    """One of the server's roles: who it is for, and the scopes it grants (`*.read` covers every `<x>.read`)."""

    slug: str
    name: str
    description: str
    scopes: tuple[str, ...]

    @property
    def id(self) -> uuid.UUID:
        return uuid.uuid5(_NAMESPACE, self.slug)


def _both(*resources: str) -> tuple[str, ...]:
    return tuple(f"{resource}.{verb}" for resource in resources for verb in _VERBS)


ROLES: tuple[Role, ...] = (
    Role(
        ADMINISTRATOR, "Administrator", "Reads and writes everything, mints embed tokens.", ("*.read", "*.write", EMBED)
    ),
    Role("viewer", "Viewer", "Reads everything; changes nothing.", ("*.read",)),
    Role(
        "payments",
        "Payments",
        "Takes payments: buyers, checkout sessions, transactions, stored payment methods and gift cards, and embed "
        "tokens; reads the payment options, services and digital wallets it pays through.",
        (
            *_both("buyers", "checkout-sessions", "transactions", "payment-methods", "gift-cards"),
            "payment-options.read",
            "payment-services.read",
            "digital-wallets.read",
            EMBED,
        ),
    ),
    Role("embed", "Embed", "Mints embed tokens for a browser's checkout, and nothing else.", (EMBED,)),
)
_BY_ID = {role.id: role for role in ROLES}
_BY_SLUG = {role.slug: role for role in ROLES}


def role_by_id(role_id: uuid.UUID) -> Role | None:
    return _BY_ID.get(role_id)


def roles_of(slugs: Iterable[str]) -> tuple[Role, ...]:
    """The roles these slugs name, in the server's order; an unknown slug (a role since withdrawn) grants nothing."""
    wanted = set(slugs)
    return tuple(role for role in ROLES if role.slug in wanted)


def granted_scopes(slugs: Iterable[str]) -> frozenset[str]:
    """Every scope the roles grant, wildcards as they are."""
    return frozenset(scope for role in roles_of(slugs) for scope in role.scopes)


def covers(scopes: frozenset[str], scope: str) -> bool:
    """Whether `scopes` grant `scope`: itself, or `*.<verb>` for a `<resource>.<verb>` (or for `*.<verb>` itself)."""
    if scope in scopes:
        return True
    _, _, verb = scope.rpartition(".")
    return verb in _VERBS and f"*.{verb}" in scopes


def effective_scopes(claimed: Iterable[str], granted: frozenset[str]) -> frozenset[str]:
    """The scopes a token may use: those it claims that its key's roles grant. `*.read` claimed against a role of
    `buyers.read` is `buyers.read`; `buyers.read` claimed against `*.read` is `buyers.read`."""
    claimed = frozenset(claimed)
    return frozenset(scope for scope in claimed if covers(granted, scope)) | frozenset(
        scope for scope in granted if covers(claimed, scope)
    )


def exceeds(scopes: frozenset[str], held: frozenset[str]) -> list[str]:
    """The scopes of `scopes` that `held` does not grant, sorted: what a key would gain beyond its maker's power.

    Power, unlike a request, counts `embed` as part of `*.write`: embed opens three writes, and `["*.read",
    "*.write"]` is the official SDK's token for all access. (A request never reads `*.write` as `embed`: an embed
    token is pinned and rate limited, a server's is not.)"""
    return sorted(scope for scope in scopes if not (covers(held, scope) or (scope == EMBED and "*.write" in held)))
