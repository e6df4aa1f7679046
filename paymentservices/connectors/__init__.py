"""One module per connector a payment service definition maps to; each builds a `PaymentConnector` from a service's
credentials (`connector(credentials)`) and checks them (`verify_credentials(credentials)`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from payments.connectors.base import ConnectorResult

# A call is never given less than this, even when the payment's time is nearly spent: a shorter wait fails calls that
# the processor would have answered, and the lookup after an unanswered call needs a chance too.
MIN_CALL_SECONDS = 1.0


class NotificationRefused(Exception):
    """A notification that is not the processor's: unsigned, forged, stale or unreadable. The message is safe to
    show the sender; `pointer` and `location` name where the signature (or the fault) is, when not in a header."""

    def __init__(self, message: str, *, pointer: str | None = None, location: str = "body") -> None:
        super().__init__(message)
        self.pointer = pointer
        self.location = location


class PaymentChange:
    """What a processor's notification says happened to a payment, in words every connector shares."""

    CAPTURED = "captured"  # the authorization was captured (`amount`: what was captured)
    CAPTURE_FAILED = "capture_failed"  # a capture the processor had accepted did not happen
    VOIDED = "voided"  # the authorization was released
    REFUNDED = "refunded"  # money went back to the card (`amount`: see `ParsedNotification.amount_is_total`)
    REFUND_FAILED = "refund_failed"  # a refund the processor had accepted did not happen (the money stays)


@dataclass(frozen=True)
class NotifiedRefund:
    """One refund the processor holds for a payment, as its notification lists it: the processor's id of it, its
    amount, our reference when we made it, whether it stands (succeeded, or on its way) and when it was made (the
    processor's clock, seconds). `by_processor`: made by the processor itself, not asked by anyone (Stripe's
    `expired_uncaptured_charge`)."""

    id: str
    amount: int
    reference: str | None
    stands: bool
    created: int
    by_processor: bool = False


@dataclass(frozen=True)
class ParsedNotification:
    """A processor's notification, once its signature is verified: its id (for duplicates), its type, the processor's
    id of the object it is about and our reference for it (when the object carries one). `change` (a
    `PaymentChange`), `amount` and `payment_reference` (the processor's id of the payment, our transaction's
    `payment_service_transaction_id`) say what it means for a payment, when it is about one.

    `amount` is what the processor says: None when it says nothing (never a stand-in), never negative (a notification
    with an impossible amount is refused by its parser). A refund's `amount` is everything refunded so far
    (`amount_is_total`, Stripe's) or this one refund (Adyen's); a total may count what a partial capture released of
    the authorization (`released`, when the notification tells it), as Stripe's did before its API version
    2025-03-31. `refunds` lists the processor's refund objects when the notification carries them (Stripe's charge):
    each is booked on its own, and the total is not used. `authorization` is the processor's decision on an
    authorization, when the notification tells it (Adyen's AUTHORISATION)."""

    event_id: str
    event_type: str
    object_id: str
    reference: str | None
    data: Mapping[str, Any] = field(default_factory=dict)
    change: str | None = None
    amount: int | None = None
    payment_reference: str | None = None
    amount_is_total: bool = True
    released: int | None = None
    refunds: tuple[NotifiedRefund, ...] | None = None
    authorization: ConnectorResult | None = None
