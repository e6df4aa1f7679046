"""Enumeration defence: request budgets per embed token and per checkout session, and a per-card lock on
failed gift card checks (docs/rate-limits.md).

Every count is an atomic increment in the `ratelimit` cache (Redis in production), keyed and windowed
as django-ratelimit's core keys them, so a budget holds across processes and hosts. Nothing here
reads a history, changes it and writes it back, as DRF's SimpleRateThrottle does.

Server-to-server tokens (valid tokens without the `embed` scope) are never counted or refused.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django_ratelimit import ALL
from django_ratelimit.core import EXPIRATION_FUDGE, _get_window, _make_cache_key, _split_rate
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import RedisError
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from payments.authentication import ApiKeyJWTAuthentication, ApiPrincipal
from payments.errors import ServiceUnavailable
from payments.models import RateLimitEvent
from payments.services import rate_limit_event_record

logger = logging.getLogger("payments.throttling")

# What an unreachable cache raises through django-redis (and plain sockets, for other backends).
CACHE_ERRORS = (ConnectionInterrupted, RedisError, OSError)
PIN_FAILURE_GROUP = "giftcard-pin-failures"
_ROUTE_GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")
_ROUTE_CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")
_USAGE_ATTRIBUTE = "rate_limit_usage"
_RATE = re.compile(r"([1-9][0-9]*)/([1-9][0-9]*)?([smhd])")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class RateLimitCacheUnavailable(Exception):
    """The rate-limit cache did not answer, so nothing could be counted."""


@dataclass(frozen=True)
class Usage:
    """A subject's budget after this request: what the RateLimit-* headers report."""

    rate: str
    limit: int
    count: int
    period: int
    reset: int  # whole seconds until the window ends, at least 1
    window_end: int  # epoch seconds

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.count)

    @property
    def exceeded(self) -> bool:
        return self.count > self.limit

    @property
    def first_refusal(self) -> bool:
        # Increments are atomic, so exactly one request in a window sees this count.
        return self.count == self.limit + 1

    def window(self) -> tuple[datetime, datetime]:
        return (
            datetime.fromtimestamp(self.window_end - self.period, tz=UTC),
            datetime.fromtimestamp(self.window_end, tz=UTC),
        )

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset),
        }


class _OutageLog:
    """Log an unreachable cache when the outage starts and when it ends, never once per request.

    Process-local on purpose: each process reports what it saw, once.
    """

    def __init__(self) -> None:
        self._down = False
        self._lock = threading.Lock()

    def failed(self, error: BaseException) -> None:
        with self._lock:
            if self._down:
                return
            self._down = True
        consequence = "admitted uncounted" if settings.RATELIMIT_FAIL_OPEN else "refused with 503"
        logger.error("Rate-limit cache unreachable (%s); limited requests are %s until it answers.", error, consequence)

    def answered(self) -> None:
        if not self._down:  # the common case, without taking the lock
            return
        with self._lock:
            if not self._down:
                return
            self._down = False
        logger.warning("Rate-limit cache answers again; limits are enforced.")


outage = _OutageLog()


def parse_rate(rate: str) -> tuple[int, int]:
    """`20/10s` -> (20, 10): django-ratelimit's syntax, requests per window of seconds."""
    match = _RATE.fullmatch(rate)
    if match is None:
        raise ValueError(f"Not a rate such as '50/m' or '20/10s': {rate!r}")
    limit, multiplier, unit = match.groups()
    return int(limit), int(multiplier or 1) * _UNIT_SECONDS[unit]


def _usage(*, group: str, subject: str, rate: str, increment: bool) -> dict[str, int] | None:
    """django-ratelimit's `get_usage`, with its keys and windows, in one cache round trip instead of two.

    `get_usage` always tries `add` first, then `incr` (or `get`): two round trips to Redis for every
    count, and for every read. Counters exist for most of their window, so trying `incr` first and
    adding the key only when it is missing costs one. A read is a plain `get`.
    """
    if not getattr(settings, "RATELIMIT_ENABLE", True):
        return None
    limit, period = _split_rate(rate)
    window = _get_window(subject, period)
    key = _make_cache_key(group, window, rate, subject, ALL)
    cache = caches[settings.RATELIMIT_USE_CACHE]
    if not increment:
        current = cache.get(key, 0)
    else:
        try:
            current = cache.incr(key)
        except ValueError:  # the window's first request: create the counter (or lose the race and count)
            current = 1 if cache.add(key, 1, period + EXPIRATION_FUDGE) else cache.incr(key)
    return {"count": current, "limit": limit, "time_left": window - int(time.time())}


def count(*, group: str, subject: str, rate: str, increment: bool = True) -> Usage | None:
    """Count one use of `subject`'s budget in `group` (or only read it); None when rate limiting is disabled.

    Raises RateLimitCacheUnavailable when the cache cannot be reached.
    """
    try:
        usage = _usage(group=group, subject=subject, rate=rate, increment=increment)
    except CACHE_ERRORS as error:
        outage.failed(error)
        raise RateLimitCacheUnavailable from error
    outage.answered()
    if usage is None:
        return None
    # A window spans whole seconds up to and including `now + time_left`, so it ends one second later
    # (time_left is -1 when the window ended between the library's two clock reads).
    reset = max(1, usage["time_left"] + 1)
    return Usage(
        rate=rate,
        limit=usage["limit"],
        count=usage["count"],
        period=parse_rate(rate)[1],
        reset=reset,
        window_end=int(time.time()) + reset,
    )


@dataclass(frozen=True)
class Subject:
    """Who a budget belongs to: the counter key, and what the record and the 429 message may show."""

    kind: RateLimitEvent.SubjectKind
    key: str
    description: str
    merchant_account_id: str | None = None
    token_id: str = ""
    checkout_session_id: str = ""


class RateLimitExceeded(Throttled):
    """429: the message names the subject and the endpoint; `wait` becomes Retry-After."""

    def __init__(self, *, subject: Subject, endpoint: str, usage: Usage) -> None:
        super().__init__(
            wait=usage.reset,
            detail=f"Too many requests for this {subject.description} on {endpoint} (limit {usage.rate}).",
            code="too_many_requests",
        )


def endpoint_name(request: Request, *, with_method: bool = True) -> str:
    """`POST /gift-cards/balances`: the route template, so every id shares one name."""
    match = request.resolver_match
    route = match.route if match is not None else request.path
    route = _ROUTE_CONVERTER.sub(r"{\1}", _ROUTE_GROUP.sub(r"{\1}", route)).strip("^$").lstrip("/")
    return f"{request.method} /{route}" if with_method else f"/{route}"


class RateLimitThrottle(BaseThrottle):
    """One budget per subject and endpoint; refuses with 429, or 503 when the cache is down and failing closed.

    Subclasses say who the subject is (None: not limited) and which setting holds the rate.
    """

    rate_setting: str
    scope: str

    def subject(self, request: Request, view: Any) -> Subject | None:
        raise NotImplementedError

    def endpoint(self, request: Request, view: Any) -> str:
        return endpoint_name(request)

    def allow_request(self, request: Request, view: Any) -> bool:
        subject = self.subject(request, view)
        if subject is None:
            return True
        endpoint = self.endpoint(request, view)
        rate = getattr(settings, self.rate_setting)
        try:
            usage = count(group=f"{self.scope}:{endpoint}", subject=subject.key, rate=rate)
        except RateLimitCacheUnavailable:
            if settings.RATELIMIT_FAIL_OPEN:
                return True
            raise ServiceUnavailable(
                "Rate limiting is temporarily unavailable, so this request was not processed; retry shortly."
            ) from None
        if usage is None:
            return True
        setattr(request, _USAGE_ATTRIBUTE, usage)
        if usage.exceeded:
            if usage.first_refusal:
                _record(subject, endpoint, usage, view)
            raise RateLimitExceeded(subject=subject, endpoint=endpoint, usage=usage)
        return True


def _record(subject: Subject, endpoint: str, usage: Usage, view: Any) -> None:
    window_start, window_end = usage.window()
    merchant_account_id = subject.merchant_account_id
    if merchant_account_id is None and hasattr(view, "rate_limit_merchant_account_id"):
        # A view that resolves no account before its body (Secure Fields) names it here, once per window.
        merchant_account_id = view.rate_limit_merchant_account_id()
    rate_limit_event_record(
        subject_kind=subject.kind,
        subject=subject.key,
        endpoint=endpoint,
        rate=usage.rate,
        window_start=window_start,
        window_end=window_end,
        merchant_account_id=merchant_account_id,
        token_id=subject.token_id,
        checkout_session_id=subject.checkout_session_id,
    )


def _merchant_account_id(request: Request) -> str | None:
    account = getattr(request, "merchant_account", None)  # set by MerchantAccountAccess when the view uses it
    return account.pk if account is not None else None


class EmbedTokenThrottle(RateLimitThrottle):
    """Per embed token (its `jti`, or a hash of the token), with a separate budget on each endpoint."""

    rate_setting = "RATELIMIT_EMBED"
    scope = "embed"

    def subject(self, request: Request, view: Any) -> Subject | None:
        principal = request.user
        if not isinstance(principal, ApiPrincipal) or not principal.is_embed:
            return None
        return Subject(
            kind=RateLimitEvent.SubjectKind.EMBED_TOKEN,
            # A jti is chosen by the signer, so two merchants' keys could pick the same one: the kid keeps them apart.
            key=f"{principal.kid}:{principal.token_id}",
            description="embed token",
            merchant_account_id=_merchant_account_id(request) or principal.merchant_account_id,
            token_id=principal.token_id,
        )


class CheckoutSessionThrottle(RateLimitThrottle):
    """Per checkout session id (the URL's `session_id`), whatever token is sent or none; PUT and POST share it.

    The one exemption is the rule every limit shares: a valid server-to-server token is never limited.
    """

    rate_setting = "RATELIMIT_CHECKOUT_FIELDS"
    scope = "checkout-fields"
    url_kwarg = "session_id"

    def endpoint(self, request: Request, view: Any) -> str:
        return f"PUT/POST {endpoint_name(request, with_method=False)}"

    def subject(self, request: Request, view: Any) -> Subject | None:
        session_id = str(view.kwargs.get(self.url_kwarg, ""))
        if not session_id or _is_server_to_server(request):
            return None
        return Subject(
            kind=RateLimitEvent.SubjectKind.CHECKOUT_SESSION,
            key=session_id,
            description="checkout session",
            merchant_account_id=_merchant_account_id(request),
            checkout_session_id=session_id,
        )


def _is_server_to_server(request: Request) -> bool:
    """A valid bearer token without `embed`; checked here too because Secure Fields itself needs no token."""
    principal = request.user
    if principal is None and request.META.get("HTTP_AUTHORIZATION"):
        try:
            authenticated = ApiKeyJWTAuthentication().authenticate(request)
        except AuthenticationFailed:
            authenticated = None
        principal = authenticated[0] if authenticated else None
    return isinstance(principal, ApiPrincipal) and not principal.is_embed


class RateLimitedMixin:
    """For a view with limited actions: `rate_limits = {"create": (EmbedTokenThrottle,)}`.

    Keys are viewset actions (or lower-case HTTP methods on a plain APIView). Every response of a limited
    action that was counted, successful or not, carries RateLimit-Limit, -Remaining and -Reset.
    """

    rate_limits: Mapping[str, Sequence[type[BaseThrottle]]] = {}

    def get_throttles(self) -> list[BaseThrottle]:
        handler = getattr(self, "action", None) or self.request.method.lower()
        return [*super().get_throttles(), *(throttle() for throttle in self.rate_limits.get(handler, ()))]

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        usage = getattr(request, _USAGE_ATTRIBUTE, None)
        if usage is not None:
            for name, value in usage.headers().items():
                response[name] = value
        return response


def record_pin_failure(subject: str, *, merchant_account_id: str, last4: str, endpoint: str) -> datetime | None:
    """Count a failed check of the card behind `subject` (a keyed hash of its number); once the failures use
    up the budget, return when the card's lock ends (the window's end), else None.

    The caller keeps the lock with the card, so a matching check needs no cache round trip to see it. From
    the failure that uses up the budget on, the lock is also recorded for support (once per window: a
    caller's rolled-back transaction may have dropped an earlier try). An unreachable cache locks nothing:
    limited callers were already refused by their request throttle when failing closed.
    """
    rate = settings.RATELIMIT_GIFTCARD_PIN_FAILURES
    try:
        usage = count(group=PIN_FAILURE_GROUP, subject=subject, rate=rate)
    except RateLimitCacheUnavailable:
        return None
    if usage is None or usage.count < usage.limit:
        return None
    window_start, window_end = usage.window()
    rate_limit_event_record(
        subject_kind=RateLimitEvent.SubjectKind.GIFT_CARD,
        subject=subject,
        endpoint=endpoint,
        rate=rate,
        window_start=window_start,
        window_end=window_end,
        merchant_account_id=merchant_account_id,
        gift_card_last4=last4,
    )
    return window_end
