"""The PIN-failure lock: a gift card rule on top of the generic counters of `payments.ratelimits`.

Failed number+PIN checks are counted per card number (a keyed hash of it), across every caller, in the
shared rate-limit cache. Once they use up `RATELIMIT_GIFTCARD_PIN_FAILURES`, the card is locked until the
window ends and every check answers like a wrong PIN (docs/rate-limits.md).
"""

from datetime import datetime

from django.conf import settings

from payments.ratelimits.counters import RateLimitCacheUnavailable, count
from payments.ratelimits.records import rate_limit_event_record

PIN_FAILURE_GROUP = "giftcard-pin-failures"
SUBJECT_KIND = "gift_card"


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
    # Never more than 4 digits of the number, whatever the caller passed.
    shown = last4[-4:] if last4[-4:].isdigit() else "????"
    rate_limit_event_record(
        subject_kind=SUBJECT_KIND,
        subject=subject,
        endpoint=endpoint,
        rate=rate,
        window_start=window_start,
        window_end=window_end,
        merchant_account_id=merchant_account_id,
        label=f"ending {shown}",
    )
    return window_end
