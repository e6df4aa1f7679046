"""Stripe's events to a service's webhook URL: verified with the service's webhook signing secret by Stripe's library,
then read as a `ParsedNotification`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import stripe

from payments.choices import DisputeState
from paymentservices.processors.calls import dispute_fact_time, is_notified_amount
from paymentservices.processors.seam import (
    NotificationRefused,
    NotifiedDispute,
    NotifiedRefund,
    ParsedNotification,
    PaymentChange,
)
from paymentservices.processors.stripe.connector import REFERENCE_KEY, value_of

# Where a refusal of the signature (or of a body that is no event) points: Stripe's header.
SIGNATURE = {"pointer": "/stripe-signature", "location": "header"}


def parse_notification(*, payload: bytes, headers: Mapping[str, str], secret: str) -> ParsedNotification:
    """The event Stripe signed with the service's webhook secret (the `Stripe-Signature` header, checked by Stripe's
    library, timestamp tolerance included); anything else, or an amount no Stripe object carries (negative, not an
    integer), raises `NotificationRefused`."""
    try:
        event = stripe.Webhook.construct_event(payload, headers.get("stripe-signature"), secret)
    except stripe.SignatureVerificationError:
        raise NotificationRefused("The Stripe-Signature header is missing or does not match.", **SIGNATURE) from None
    except ValueError:
        raise NotificationRefused("The body is not a Stripe event.", **SIGNATURE) from None
    obj = value_of(value_of(event, "data"), "object")
    reference = value_of(value_of(obj, "metadata"), REFERENCE_KEY)
    event_id, event_type = value_of(event, "id"), value_of(event, "type")
    if not event_id or not event_type:
        raise NotificationRefused("The body is not a Stripe event.", **SIGNATURE)
    return ParsedNotification(
        event_id=str(event_id),
        event_type=str(event_type),
        object_id=str(value_of(obj, "id") or ""),
        reference=str(reference) if reference else None,
        data=obj.to_dict() if isinstance(obj, stripe.StripeObject) else {},
        **(_disputed(obj, created=value_of(event, "created")) if _is_dispute(str(event_type)) else {}),
        **_payment_change(str(event_type), obj),
        # A kept card's PaymentMethod detached from its Customer (in Stripe's Dashboard, or by Stripe): unusable now.
        revoked_token=str(value_of(obj, "id")) if event_type == "payment_method.detached" else None,
    )


def _amount(obj: Any, key: str, *, pointer: str = "/data/object") -> int | None:
    """The amount `obj` gives under `key`, or None when it gives none (missing, zero and negative are different facts:
    none stands in for another). Anything but a non-negative integer is refused, naming it."""
    value = value_of(obj, key)
    if value is None:
        return None
    if is_notified_amount(value):
        return int(value)
    raise NotificationRefused(f"`{key}` is not an amount Stripe sends.", pointer=f"{pointer}/{key}")


def _payment_change(event_type: str, obj: Any) -> dict[str, Any]:
    """What a Stripe event says happened to a PaymentIntent: captured (a PaymentIntent succeeded: `amount_received`,
    what Stripe received, or None when the event does not say), canceled, or refunded (a charge refunded: its refund
    objects when the charge lists them, else the total Stripe counts as refunded, and what a partial capture released
    of the authorization); nothing for events about nothing we track."""
    if event_type == "payment_intent.succeeded":
        return {
            "change": PaymentChange.CAPTURED,
            "amount": _amount(obj, "amount_received"),
            "payment_reference": value_of(obj, "id"),
        }
    if event_type == "payment_intent.canceled":
        return {"change": PaymentChange.VOIDED, "payment_reference": value_of(obj, "id")}
    if event_type == "charge.refunded":
        intent = value_of(obj, "payment_intent")
        return {
            "change": PaymentChange.REFUNDED,
            "amount": _amount(obj, "amount_refunded"),
            "payment_reference": intent if isinstance(intent, str) else value_of(intent, "id"),
            "released": _released(obj),
            "refunds": _refunds(obj),
        }
    return {}


def _released(charge: Any) -> int | None:
    """What a partial capture released of the charge's authorization (`amount` less `amount_captured`), when the
    charge was captured and says both."""
    amount, captured = _amount(charge, "amount"), _amount(charge, "amount_captured")
    if value_of(charge, "captured") is not True or amount is None or captured is None or captured > amount:
        return None
    return amount - captured


def _refunds(charge: Any) -> tuple[NotifiedRefund, ...] | None:
    """The charge's refund objects, when the event carries them (`refunds.data`: Stripe's API versions before
    2022-11-15 list them on a charge, later ones only when expanded)."""
    listed = value_of(value_of(charge, "refunds"), "data")
    if not isinstance(listed, list):
        return None
    refunds = []
    for index, refund in enumerate(listed):
        pointer = f"/data/object/refunds/data/{index}"
        refund_id, created = value_of(refund, "id"), value_of(refund, "created")
        amount = _amount(refund, "amount", pointer=pointer)
        if not isinstance(refund_id, str) or not refund_id or amount is None or not isinstance(created, int):
            raise NotificationRefused("A refund of the charge is not a Stripe refund.", pointer=pointer)
        reference = value_of(value_of(refund, "metadata"), REFERENCE_KEY)
        refunds.append(
            NotifiedRefund(
                id=refund_id,
                amount=amount,
                reference=str(reference) if reference else None,
                stands=value_of(refund, "status") in ("succeeded", "pending"),
                created=created,
                by_processor=value_of(refund, "reason") == "expired_uncaptured_charge",
            )
        )
    return tuple(refunds)


# Stripe's dispute events: `charge.dispute.created`, `updated`, `closed`, `funds_withdrawn`, `funds_reinstated`; each
# carries the Dispute object as it stands, so every one says the dispute's state.
_DISPUTE_EVENTS = ("created", "updated", "closed", "funds_withdrawn", "funds_reinstated")
# A Dispute's `status` (Stripe's API reference, "The Dispute object") in the words every processor shares. An inquiry
# (`warning_*`) that closes became no chargeback: the money never left, so the merchant won it.
_DISPUTE_STATES = {
    "warning_needs_response": DisputeState.INQUIRY,
    "warning_under_review": DisputeState.INQUIRY,
    "warning_closed": DisputeState.WON,
    "needs_response": DisputeState.NEEDS_RESPONSE,
    "under_review": DisputeState.UNDER_REVIEW,
    "won": DisputeState.WON,
    "lost": DisputeState.LOST,
}
_DISPUTE = "/data/object"


def _is_dispute(event_type: str) -> bool:
    return event_type.startswith("charge.dispute.") and event_type.removeprefix("charge.dispute.") in _DISPUTE_EVENTS


def _disputed(dispute: Any, *, created: Any) -> dict[str, Any]:
    """The dispute a `charge.dispute.*` event carries and the PaymentIntent it disputes; a dispute without its id,
    a status Stripe documents, its PaymentIntent or the event's time (within the window around now:
    `dispute_fact_time`) is refused, naming the field."""
    dispute_id, status, intent = (
        value_of(dispute, "id"),
        value_of(dispute, "status"),
        value_of(dispute, "payment_intent"),
    )
    intent = intent if isinstance(intent, str) else value_of(intent, "id")
    if not isinstance(dispute_id, str) or not dispute_id:
        raise NotificationRefused("The dispute has no id.", pointer=f"{_DISPUTE}/id")
    if status not in _DISPUTE_STATES:
        raise NotificationRefused("`status` is not a dispute status Stripe documents.", pointer=f"{_DISPUTE}/status")
    if not isinstance(intent, str) or not intent:
        raise NotificationRefused("The dispute names no PaymentIntent.", pointer=f"{_DISPUTE}/payment_intent")
    if not isinstance(created, int):
        raise NotificationRefused("The event has no time it was created.", pointer="/created")
    currency, reason, amount = value_of(dispute, "currency"), value_of(dispute, "reason"), _amount(dispute, "amount")
    if amount is None:
        raise NotificationRefused("The dispute says no amount.", pointer=f"{_DISPUTE}/amount")
    if not isinstance(currency, str) or len(currency) != 3:
        raise NotificationRefused("The dispute says no currency.", pointer=f"{_DISPUTE}/currency")
    due_by = value_of(value_of(dispute, "evidence_details"), "due_by")
    return {
        "payment_reference": intent,
        "dispute": NotifiedDispute(
            id=dispute_id,
            state=_DISPUTE_STATES[status],
            reason=str(reason)[:255] if reason else None,
            amount=amount,
            currency=currency.upper(),
            due_at=datetime.fromtimestamp(due_by, tz=UTC) if isinstance(due_by, int) else None,
            occurred_at=dispute_fact_time(_event_time(created), pointer="/created"),
        ),
    }


def _event_time(created: int) -> datetime:
    """The event's `created` as a time; one no clock can hold (beyond year 9999) is as far out as a time goes, which
    the window refuses."""
    try:
        return datetime.fromtimestamp(created, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return datetime.max.replace(tzinfo=UTC) if created > 0 else datetime.min.replace(tzinfo=UTC)
