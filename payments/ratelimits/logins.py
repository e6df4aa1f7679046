"""The failure limit of the admin sign-in: failed sign-ins counted per user name at one client address, and per
client address across user names.

A user name is never counted alone: a budget of the name alone would let anyone who knows an admin's user name keep
that admin out, from anywhere, by typing wrong passwords. Counted with the address, the attacker's wrong passwords
lock the name at the attacker's address only; the admin at their own address still signs in. The per-address budget
stops one address from trying many names. (The same choice as django-axes's `[["username", "ip_address"]]`,
with the project's own counters: docs/admin.md says why.)

Counts are the atomic counters of `payments.ratelimits.counters` in the shared `ratelimit` cache (Redis in
production), so the limit holds across processes and hosts. Once a budget is used up
(`ADMIN_LOGIN_FAILURES_PER_USER` for a user name at an address, `ADMIN_LOGIN_FAILURES_PER_ADDRESS` for an address)
every sign-in it covers is refused, the right password included, until the window ends. Reaching a limit is
written to the audit log and the application log once per window (docs/admin.md).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings

from payments.audit.models import AuditLogEntry
from payments.audit.services import Actor, audit_record
from payments.ratelimits.counters import Usage, count

logger = logging.getLogger("payments.ratelimits")

RESOURCE_TYPE = "staff-sign-in"
# The counters of a user name at an address, and of an address (a group names its counters in the cache).
_GROUPS = {"user": "staff-login-failures-user-address", "address": "staff-login-failures-address"}
_LOGGED_KIND = {"user": "user name at one address", "address": "client address"}


@dataclass(frozen=True)
class SignInLock:
    """A user name at a client address, or a client address, that may not sign in for `seconds_left` more seconds."""

    kind: str  # "user" (the user name, at this address) or "address"
    seconds_left: int


def _budgets(username: str, address: str) -> list[tuple[str, str, str]]:
    # User names are compared without case: the budget of `admin` is also that of `Admin`. The cache key is a digest
    # of the subject, so neither the name nor the address is kept in clear.
    return [
        ("user", f"{username.strip().casefold()}\n{address}", settings.ADMIN_LOGIN_FAILURES_PER_USER),
        ("address", address, settings.ADMIN_LOGIN_FAILURES_PER_ADDRESS),
    ]


def _locked(usage: Usage | None) -> bool:
    return usage is not None and usage.count >= usage.limit


def staff_login_lock(*, username: str, address: str) -> SignInLock | None:
    """The lock on this user name at this address, or on this address, if either has used up its failures; raises
    `RateLimitCacheUnavailable` when the counters cannot be read."""
    for kind, subject, rate in _budgets(username, address):
        usage = count(group=_GROUPS[kind], subject=subject, rate=rate, increment=False)
        if usage is not None and _locked(usage):
            return SignInLock(kind=kind, seconds_left=usage.reset)
    return None


def staff_login_failed(*, username: str, address: str) -> SignInLock | None:
    """Count one failed sign-in against the user name at the address and against the address; the lock it causes,
    if any.

    The failure that uses up a budget (exactly one per window: increments are atomic) is audited and logged.
    Raises `RateLimitCacheUnavailable` when the counters cannot be written.
    """
    lock = None
    for kind, subject, rate in _budgets(username, address):
        usage = count(group=_GROUPS[kind], subject=subject, rate=rate)
        if usage is None or not _locked(usage):
            continue
        lock = lock or SignInLock(kind=kind, seconds_left=usage.reset)
        if usage.count == usage.limit:
            _record_lockout(kind=kind, username=username, address=address, usage=usage)
    return lock


def _record_lockout(*, kind: str, username: str, address: str, usage: Usage) -> None:
    # The user name is what was typed, not necessarily an account's: kept in the admin-only audit log (masked of
    # card numbers there), never in the application log, where a password typed as a user name would stay.
    audit_record(
        actor=Actor(id=None, name=address or "unknown address", is_staff=False),
        action=AuditLogEntry.Action.LOCKED_OUT,
        resource_type=RESOURCE_TYPE,
        resource_id=(username if kind == "user" else address)[:64],
        resource_name=f"user {username} at address {address}" if kind == "user" else f"address {address}",
        merchant_account_id=None,
    )
    logger.warning(
        "Admin sign-in locked for a %s after %d failures (%s) from %s; unlocked in %d s",
        _LOGGED_KIND[kind],
        usage.count,
        usage.rate,
        address,
        usage.reset,
    )
