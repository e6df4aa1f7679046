"""Reads for merchant accounts and API keys, cached in-process because every request needs them."""

import re
import time
from collections.abc import Callable, Mapping
from threading import Lock
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db.models import Q, QuerySet

from payments.accounts.models import ApiKey, MerchantAccount
from payments.errors import NotFound

T = TypeVar("T")


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

_api_keys: _TtlCache[ApiKey] = _TtlCache()
_merchant_accounts: _TtlCache[MerchantAccount] = _TtlCache()
_origins: _TtlCache[frozenset[str]] = _TtlCache()


def api_key_get_active(*, kid: str) -> ApiKey | None:
    """The active key with this `kid`, or None; trusted for API_KEY_CACHE_SECONDS."""

    def load() -> ApiKey | None:
        return ApiKey.objects.filter(kid=kid, is_active=True).first()

    return _api_keys.get(kid, load, settings.API_KEY_CACHE_SECONDS)


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


def forget_api_key(kid: str) -> None:
    _api_keys.forget(kid)


def forget_merchant_account(id: str) -> None:
    """Drop this process's copy of the account after a change (other processes trust theirs for
    API_KEY_CACHE_SECONDS)."""
    _merchant_accounts.forget(id)
    _origins.clear()


def clear_caches() -> None:
    """Drop every cached key and account (tests, and after bulk changes)."""
    _api_keys.clear()
    _merchant_accounts.clear()
    _origins.clear()
