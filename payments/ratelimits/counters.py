"""Atomic counters in the shared `ratelimit` cache, keyed and windowed as django-ratelimit's core keys them.

Every count is one atomic increment (Redis in production), so a budget holds across processes and hosts.
Nothing here reads a history, changes it and writes it back, as DRF's SimpleRateThrottle does. The
throttles (`payments.ratelimits.throttles`) and any app's own budgets (a gift card's PIN failures) count
through `count`.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import caches
from django_ratelimit import ALL
from django_ratelimit.core import EXPIRATION_FUDGE, _get_window, _make_cache_key, _split_rate
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import RedisError

logger = logging.getLogger("payments.ratelimits")

# What an unreachable cache raises through django-redis (and plain sockets, for other backends).
CACHE_ERRORS = (ConnectionInterrupted, RedisError, OSError)
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
