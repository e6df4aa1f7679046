"""Reads for merchant accounts and API keys. Every request needs both: accounts are cached in-process, keys in the
shared cache (Redis in production) and held in-process only while changes to them are heard
(payments/held_states.py), so that a key deleted or disabled on one host is refused at once on every host.
"""

import contextlib
import logging
import re
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from threading import Lock
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.core.cache import caches
from django.db.models import Exists, OuterRef, Q, QuerySet
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import RedisError

from payments.accounts.models import ApiKey, ApiKeyMerchantAccount, MerchantAccount
from payments.accounts.roles import granted_scopes
from payments.errors import NotFound
from payments.held_states import held_states

T = TypeVar("T")
logger = logging.getLogger(__name__)
# What the shared cache raises when Redis does not answer (as payments.ratelimits.counters knows them).
CACHE_ERRORS = (ConnectionInterrupted, RedisError, OSError)


class _TtlCache(Generic[T]):
    """A small thread-safe map whose entries expire; losing it only costs a query."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[float, T]] = {}
        self._lock = Lock()

    def get(self, key: str, loader: Callable[[], T | None], ttl: float) -> T | None:
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry and entry[0] > now:
            return entry[1]
        value = loader()
        if value is not None:  # a miss is not remembered: a new key or account works at once
            with self._lock:
                self._entries[key] = (now + ttl, value)
        return value

    def forget(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


MERCHANT_ACCOUNT_HEADER = "HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID"
DEFAULT_MERCHANT_ACCOUNT = "default"
_ACCOUNT_ID = re.compile(r"[-a-zA-Z0-9_]{1,255}")

_merchant_accounts: _TtlCache[MerchantAccount] = _TtlCache()
_origins: _TtlCache[frozenset[str]] = _TtlCache()


@dataclass(frozen=True)
class ActiveKey:
    """What authentication needs of an active key, as the shared cache holds it (no model instance, no queries)."""

    id: uuid.UUID
    kid: str
    name: str
    algorithm: str
    public_key: str
    merchant_account_ids: frozenset[str] | None  # the accounts it reaches; None: every account
    scopes: frozenset[str]  # what its roles grant

    @classmethod
    def of(cls, api_key: ApiKey) -> "ActiveKey":
        return cls(
            id=api_key.pk,
            kid=api_key.kid,
            name=api_key.name,
            algorithm=api_key.algorithm,
            public_key=api_key.public_key,
            merchant_account_ids=api_key.merchant_account_ids,
            scopes=granted_scopes(api_key.roles),
        )

    @classmethod
    def of_rows(cls, rows: list[dict[str, Any]]) -> "ActiveKey":
        """From the key's columns joined to each account it reaches (`_ACTIVE_KEY_COLUMNS`; one row with no account
        when it reaches every account): one statement whatever the key's reach."""
        key = rows[0]
        reached = frozenset(row["merchant_accounts"] for row in rows if row["merchant_accounts"] is not None)
        return cls(
            id=key["id"],
            kid=key["kid"],
            name=key["display_name"] or key["kid"],  # as `ApiKey.name`
            algorithm=key["algorithm"],
            public_key=key["public_key"],
            merchant_account_ids=None if key["all_merchant_accounts"] else reached,
            scopes=granted_scopes(key["roles"]),
        )


_ACTIVE_KEY_COLUMNS = ("id", "kid", "display_name", "algorithm", "public_key", "roles", "all_merchant_accounts")
_INACTIVE = "inactive"  # the shared cache's word for a key that is deleted or disabled


def _key_cache_key(kid: str) -> str:
    # Versioned by the shape of ActiveKey: a host still running the shape before reads and writes its own entries.
    return f"api-key:v2:{kid}"


def api_key_get_active(*, kid: str) -> ActiveKey | None:
    """The active key with this `kid`, or None. A change to a key (payments.accounts.services) writes its new state
    into the shared cache when it commits and announces it, so every process sees it at once: this process holds what
    it read only while subscribed to those announcements (payments.held_states), and reads the shared cache
    otherwise. A reader only ever *adds* what it loaded, so it cannot overwrite a newer state a writer has just put.
    With the cache unreachable, the database answers (slower, never wrong)."""
    cache = caches["default"]
    cached = held_states.get(cache, kid)
    seen = held_states.changes_seen()
    if cached is None:
        try:
            cached = cache.get(_key_cache_key(kid))
        except CACHE_ERRORS:
            logger.warning("The shared cache is unreachable: API keys are read from the database.")
            cached = None
        if cached is not None:
            held_states.hold(kid, cached, settings.API_KEY_CACHE_SECONDS, seen=seen)
    if isinstance(cached, ActiveKey):
        return cached
    if cached == _INACTIVE:
        return None
    active = ApiKey.objects.filter(kid=kid, is_active=True)
    rows = list(active.values(*_ACTIVE_KEY_COLUMNS, "merchant_accounts"))
    if not rows:
        return None  # a miss is not remembered: a key registered next works at once
    state = ActiveKey.of_rows(rows)
    with contextlib.suppress(*CACHE_ERRORS):  # the next request reads the database again
        if cache.add(_key_cache_key(kid), state, settings.API_KEY_CACHE_SECONDS):
            held_states.hold(kid, state, settings.API_KEY_CACHE_SECONDS, seen=seen)
        _known_kids.add(kid)
    return state


def api_key_publish(api_key: ApiKey | None, *, kid: str) -> None:
    """Put the key's state as it now is into the shared cache (after the change commits) and announce the change:
    every process drops what it held of the key and reads it next. Unreachable, the change is made but other hosts
    may trust their cached state for API_KEY_CACHE_SECONDS: said in the log, never an error to the caller whose
    change committed."""
    state: ActiveKey | str = ActiveKey.of(api_key) if api_key is not None and api_key.is_active else _INACTIVE
    cache = caches["default"]
    try:
        cache.set(_key_cache_key(kid), state, settings.API_KEY_CACHE_SECONDS)
        held_states.announce(cache, kid)
    except CACHE_ERRORS:
        logger.error(
            "The shared cache is unreachable: a changed API key may be trusted elsewhere for %s seconds.",
            settings.API_KEY_CACHE_SECONDS,
        )
        return
    _known_kids.add(kid)


_known_kids: set[str] = set()  # what this process put in the shared cache, so that tests can take it out


def api_key_pair_list(*, merchant_account_ids: frozenset[str] | None) -> QuerySet[ApiKey]:
    """The keys a caller reaching `merchant_account_ids` may see: those reaching no account beyond them (None: every
    key). A key that also reaches another account is not shown: it would tell which other accounts exist."""
    keys = ApiKey.objects.select_related("created_by").prefetch_related("merchant_accounts")
    if merchant_account_ids is None:
        return keys
    beyond = ApiKeyMerchantAccount.objects.filter(api_key=OuterRef("pk")).exclude(
        merchant_account_id__in=merchant_account_ids
    )
    return keys.filter(all_merchant_accounts=False).exclude(Exists(beyond))


def api_key_pair_find(*, id: uuid.UUID, merchant_account_ids: frozenset[str] | None) -> ApiKey:
    """One key the caller may see; a key reaching beyond the caller's accounts is not found, as a missing one."""
    api_key = api_key_pair_list(merchant_account_ids=merchant_account_ids).filter(pk=id).first()
    if api_key is None:
        raise NotFound("The API key pair could not be found.")
    return api_key


def merchant_accounts_of(*, ids: list[str]) -> list[MerchantAccount]:
    """The accounts these ids name, in their order; an id no account has is left out."""
    accounts = MerchantAccount.objects.in_bulk(ids)
    return [accounts[id] for id in ids if id in accounts]


def merchant_account_get(*, id: str) -> MerchantAccount | None:
    """The merchant account with this id, or None."""
    return _merchant_accounts.get(
        id, lambda: MerchantAccount.objects.filter(pk=id).first(), settings.API_KEY_CACHE_SECONDS
    )


def requested_merchant_account_id(meta: Mapping[str, Any]) -> str:
    """The account a request names in `x-gr4vy-merchant-account-id` (WSGI `meta`); absent: `default`. A header
    sent empty names no account (`""`), not the default one: a client that meant an account must not act for
    another because its value went missing on the way."""
    value: str = meta.get(MERCHANT_ACCOUNT_HEADER, DEFAULT_MERCHANT_ACCOUNT)
    return value


def merchant_account_header_empty(meta: Mapping[str, Any]) -> bool:
    """Whether the request sends `x-gr4vy-merchant-account-id` with no value (or only spaces)."""
    value = meta.get(MERCHANT_ACCOUNT_HEADER)
    return value is not None and not str(value).strip()


def merchant_account_requested(meta: Mapping[str, Any]) -> MerchantAccount | None:
    """The account the request names, or None when no such account exists (or the id is not a slug)."""
    account_id = requested_merchant_account_id(meta)
    # Only slug-shaped ids reach the database (a NUL byte would be a 500 on PostgreSQL).
    return merchant_account_get(id=account_id) if _ACCOUNT_ID.fullmatch(account_id) else None


def merchant_account_origins() -> frozenset[str]:
    """Every browser origin some merchant account allows; trusted for API_KEY_CACHE_SECONDS, like accounts."""

    def load() -> frozenset[str]:
        rows = MerchantAccount.objects.values_list("allowed_origins", flat=True)
        return frozenset(
            origin for origins in rows if isinstance(origins, list) for origin in origins if isinstance(origin, str)
        )

    origins = _origins.get("*", load, settings.API_KEY_CACHE_SECONDS)
    return origins if origins is not None else frozenset()  # never None: `load` always answers a set


def merchant_account_find(*, id: str) -> MerchantAccount:
    """The merchant account a path names; an unknown id (or one that is no slug) is not found."""
    account = merchant_account_get(id=id) if _ACCOUNT_ID.fullmatch(id) else None
    if account is None:
        raise NotFound("The merchant account could not be found.")
    return account


def merchant_account_list(*, search: str | None = None) -> QuerySet[MerchantAccount]:
    """Every merchant account; `search` matches part of the id or of the display name. Pagination orders them."""
    accounts = MerchantAccount.objects.all()
    if search:
        accounts = accounts.filter(Q(id__icontains=search) | Q(display_name__icontains=search))
    return accounts


def forget_merchant_account(id: str) -> None:
    """Drop this process's copy of the account after a change (other processes trust theirs for
    API_KEY_CACHE_SECONDS)."""
    _merchant_accounts.forget(id)
    _origins.clear()


def clear_caches() -> None:
    """Drop every cached key and account (tests, and after bulk changes)."""
    caches["default"].delete_many([_key_cache_key(kid) for kid in _known_kids])
    _known_kids.clear()
    held_states.forget_all()
    _merchant_accounts.clear()
    _origins.clear()
