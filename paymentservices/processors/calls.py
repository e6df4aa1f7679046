"""What every processor's connector shares about its calls: how long one may wait, whether a failed one can have
reached the processor, and the answer it gives when the processor gave none. Written once here, so two processors'
folders never say it twice (docs/payment-services.md, "Adding a processor").
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from payments.connectors.base import ConnectorResult, Outcome
from paymentservices.processors.seam import NotificationRefused

# A call is never given less than this, even when the payment's time is nearly spent: a shorter wait fails calls that
# the processor would have answered, and the lookup after an unanswered call needs a chance too.
MIN_CALL_SECONDS = 1.0

# FAILED results' `error_code`: no answer about the payment (the processor unreachable, slow or failing), or the
# service's credentials (or a URL made from them) refused.
NO_ANSWER = "service_error"
MISCONFIGURED = "invalid_service_configuration"

# A FAILED result's `raw_response_code` when the URL a connector was about to call is not its processor's: nothing
# was sent.
HOST_REFUSED = "host_refused"

# Amounts in a notification: minor units, an int64 at the most, never negative.
MAX_NOTIFIED_AMOUNT = 2**63 - 1

# The window of dates a dispute fact may say it happened in, around now (docs/disputes.md): the time orders facts, so
# one dated far ahead would be later than every real one and hold the dispute where it said (Adyen's signature does
# not cover `eventDate`). An hour ahead covers clocks that disagree; 90 days back covers every resend the processors
# make (their retries and their dashboards' resends stop well before).
DISPUTE_FACT_FUTURE = timedelta(hours=1)
DISPUTE_FACT_PAST = timedelta(days=90)


def call_timeout(timeout: float, deadline: float | None) -> float:
    """How long the next call may wait: the processor's `timeout`, and never past the payment's `deadline` (a
    `time.monotonic()` value), though never less than MIN_CALL_SECONDS."""
    if deadline is None:
        return timeout
    return max(MIN_CALL_SECONDS, min(timeout, deadline - time.monotonic()))


def never_connected(error: BaseException) -> bool:
    """Whether a connection error (as the `requests` library words it) happened before anything was sent: the
    connection was refused or its host never resolved, so the processor cannot have seen the request."""
    text = str(error)
    return "NewConnectionError" in text or "Connection refused" in text or "Failed to resolve" in text


def no_answer(*, code: str, misconfigured: bool, description: str) -> ConnectorResult:
    """The FAILED answer of a call the processor did not decide: `code` names what happened (an HTTP status, an
    error's name), `description` says it in words safe to show."""
    return ConnectorResult(
        outcome=Outcome.FAILED,
        error_code=MISCONFIGURED if misconfigured else NO_ANSWER,
        raw_response_code=code,
        raw_response_description=description,
    )


class NoAnswer(Exception):
    """The processor gave no answer to a call; `sent` says whether the request may have reached it, `code` names what
    happened (an HTTP status, an error's name, HOST_REFUSED) and `misconfigured` whether the service's credentials or
    URL were refused."""

    def __init__(self, *, sent: bool, code: str, misconfigured: bool = False) -> None:
        super().__init__(code)
        self.sent = sent
        self.code = code
        self.misconfigured = misconfigured


def unanswered(exc: NoAnswer, *, processor: str, host_refused: str) -> ConnectorResult:
    """The FAILED answer of a `NoAnswer` from `processor`, in words safe to show (`host_refused` for HOST_REFUSED)."""
    if exc.code == HOST_REFUSED:
        description = host_refused
    else:
        description = f"{processor} refused the credentials." if exc.misconfigured else f"{processor} gave no answer."
    return no_answer(code=exc.code, misconfigured=exc.misconfigured, description=description)


def field_of(obj: Any, key: str) -> Any:
    """`obj[key]` when `obj` is a mapping that has it, else None (a processor's answer read defensively)."""
    return obj[key] if isinstance(obj, Mapping) and key in obj else None


def is_notified_amount(value: Any) -> bool:
    """Whether `value` is an amount a processor's notification may carry: an integer of minor units, not negative."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_NOTIFIED_AMOUNT


def dispute_fact_time(at: datetime, *, pointer: str) -> datetime:
    """`at`, the time a processor says a dispute fact happened, when it is within the window around now; else
    `NotificationRefused` naming `pointer`: refused and logged like any notification the server does not take, and not
    recorded, so the processor's genuine one is still taken when it comes."""
    now = datetime.now(UTC)
    if not now - DISPUTE_FACT_PAST <= at <= now + DISPUTE_FACT_FUTURE:
        raise NotificationRefused(
            f"The dispute's date is not within {DISPUTE_FACT_PAST.days} days before and "
            f"{DISPUTE_FACT_FUTURE.seconds // 3600} hour after now.",
            pointer=pointer,
        )
    return at
