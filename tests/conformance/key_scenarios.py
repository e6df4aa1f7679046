"""Scenarios of API key pairs and roles."""

from __future__ import annotations

from typing import Any

from payments.accounts import keys
from payments.accounts.models import ApiKey
from payments.accounts.roles import ROLES
from payments.tests.factories import MerchantAccountFactory
from tests.conformance.world import Scenario, World

VIEWER = str(next(role.id for role in ROLES if role.slug == "viewer"))
PAIRS = "/api-key-pairs"
PAIR = "/api-key-pairs/{api_key_pair_id}"


def _key(world: World) -> ApiKey:
    """A key of the world's account that the platform's key may read and change."""
    private_key, _ = keys.generate_private_key()
    api_key = ApiKey.objects.create(
        kid=keys.thumbprint(private_key.public_key()),
        public_key=keys.public_pem(private_key),
        roles=["viewer"],
        display_name="Reporting",
    )
    api_key.merchant_accounts.add(world.account)
    return api_key


def _pair(world: World) -> str:
    return f"{PAIRS}/{_key(world).pk}"


def _create(world: World, **fields: Any) -> Any:
    body = {"display_name": "Checkout server", "role_ids": [VIEWER], **fields}
    return world.platform.post(PAIRS, body, format="json")


def _duplicate(world: World) -> Any:
    public_pem = keys.public_pem(keys.generate_private_key()[0])
    _create(world, public_key=public_pem)
    return _create(world, public_key=public_pem)


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    (PAIRS, "GET", "page", lambda w: (_key(w), w.platform.get(PAIRS))[1]),
    (PAIRS, "GET", "bad-limit", lambda w: w.platform.get(PAIRS, {"limit": 101})),
    (PAIRS, "GET", "wrong-scope", lambda w: w.read_only.get(PAIRS)),
    (PAIRS, "GET", "no-token", lambda w: w.anonymous.get(PAIRS)),
    (PAIRS, "POST", "created", lambda w: _create(w, merchant_account_ids=[w.account.pk])),
    (PAIRS, "POST", "invalid", lambda w: _create(w, role_ids=[], display_name="")),
    (
        PAIRS,
        "POST",
        "several-accounts",
        lambda w: _create(w, merchant_account_ids=[w.account.pk, MerchantAccountFactory().pk]),
    ),
    (PAIRS, "POST", "duplicate", _duplicate),
    (
        PAIRS,
        "POST",
        "wrong-scope",
        lambda w: w.client.post(PAIRS, {"display_name": "x", "role_ids": [VIEWER]}, format="json"),
    ),
    (PAIR, "GET", "found", lambda w: w.platform.get(_pair(w))),
    (PAIR, "GET", "missing", lambda w: w.platform.get(f"{PAIRS}/fe26475d-ec3e-4884-9553-f7356683f7f9")),
    (PAIR, "PUT", "updated", lambda w: w.platform.put(_pair(w), {"display_name": "Renamed"}, format="json")),
    (PAIR, "PUT", "invalid", lambda w: w.platform.put(_pair(w), {"active": "no"}, format="json")),
    (PAIR, "DELETE", "deleted", lambda w: w.platform.delete(_pair(w))),
    (PAIR, "DELETE", "missing", lambda w: w.platform.delete(f"{PAIRS}/fe26475d-ec3e-4884-9553-f7356683f7f9")),
    ("/roles", "GET", "page", lambda w: w.platform.get("/roles", {"limit": 2})),
    ("/roles", "GET", "bad-limit", lambda w: w.platform.get("/roles", {"limit": 0})),
    ("/roles", "GET", "no-token", lambda w: w.anonymous.get("/roles")),
]
