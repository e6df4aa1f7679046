"""Adyen's standard webhooks to a service's webhook URL: one notification item, its signed fields held to their shapes,
verified with the service's HMAC key by Adyen's library, then read as a `ParsedNotification`. Adyen's tokenization
webhooks come to the same URL: one event about a stored payment method, signed over the whole body with the
tokenization webhook's own HMAC key; `recurring.token.disabled` revokes our token of it (docs/stored-cards-at-
processors.md)."""

from __future__ import annotations

import binascii
import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from Adyen.util import is_valid_hmac_notification, is_valid_hmac_payload

from payments.choices import DisputeState
from payments.connectors.base import ConnectorResult, Outcome
from paymentservices.processors.adyen.codes import DEFAULT_REFUSAL
from paymentservices.processors.adyen.rules import MERCHANT_ACCOUNT
from paymentservices.processors.calls import dispute_fact_time, is_notified_amount
from paymentservices.processors.calls import field_of as _get
from paymentservices.processors.seam import (
    AvailableReport,
    NotificationRefused,
    NotifiedDispute,
    NotifiedPayout,
    ParsedNotification,
    PaymentChange,
)

ITEM_POINTER = "/notificationItems/0/NotificationRequestItem"
HMAC_POINTER = ITEM_POINTER + "/additionalData/hmacSignature"


def parse_notification(
    *, payload: bytes, headers: Mapping[str, str], secret: str, tokenization_secret: str | None = None
) -> ParsedNotification:
    """The notification item Adyen signed with the service's HMAC key (checked by Adyen's library), once every signed
    field has its shape; anything else raises `NotificationRefused`. Adyen sends one item per notification; a batch
    of several is refused. A tokenization event is checked with `tokenization_secret` instead."""
    try:
        body = json.loads(payload)
    except ValueError:
        raise NotificationRefused("The body is not an Adyen notification.", pointer="/notificationItems") from None
    if isinstance(body, dict) and "notificationItems" not in body and "type" in body:
        return _token_event(body, payload, headers.get(SIGNATURE_HEADER) or "", tokenization_secret)
    items = _get(body, "notificationItems")
    if not isinstance(items, list) or len(items) != 1:
        raise NotificationRefused("An Adyen notification carries exactly one item.", pointer="/notificationItems")
    item = _get(items[0], "NotificationRequestItem")
    signature = _get(_get(item, "additionalData"), "hmacSignature")
    amount = _get(item, "amount")
    if not isinstance(item, dict) or not signature or not isinstance(amount, Mapping):
        raise NotificationRefused(
            "The notification is unsigned or not an Adyen notification item.", pointer=HMAC_POINTER
        )
    _check_signed_fields(item, amount)
    try:
        valid = is_valid_hmac_notification(item, secret)
    except (binascii.Error, ValueError, KeyError, TypeError):
        valid = False
    if not valid:
        raise NotificationRefused("The HMAC signature does not match.", pointer=HMAC_POINTER)
    event_code, psp, success = item["eventCode"], item["pspReference"], item["success"]
    data = {key: value for key, value in item.items() if key != "additionalData"}
    payment = str(_get(item, "originalReference") or psp)
    return ParsedNotification(
        # Adyen's own rule for duplicates: the same event code, PSP reference and success flag.
        event_id=f"{event_code}:{psp}:{success}",
        event_type=event_code,
        # The event's own object: the payment for AUTHORISATION, the capture, cancel or refund for a modification
        # (whose notification names the payment as `originalReference`).
        object_id=psp,
        reference=str(_get(item, "merchantReference") or "") or None,
        data=data,
        change=_NOTIFIED_CHANGES.get((event_code, success == "true")),
        amount=amount["value"],
        payment_reference=payment,
        amount_is_total=False,  # Adyen notifies each refund (and capture) on its own
        authorization=_notified_authorization(item, payment) if event_code == "AUTHORISATION" else None,
        report=_available_report(item),
        dispute=_notified_dispute(item, amount) if event_code in _DISPUTE_EVENTS and success == "true" else None,
        payout=_notified_payout(item),
    )


# Adyen's tokenization webhooks: the event's type, its id, and the header that carries the HMAC signature of the body.
TOKEN_EVENT = re.compile(r"recurring\.token\.[A-Za-z]{1,32}", re.ASCII)
DISABLED_EVENT = "recurring.token.disabled"
SIGNATURE_HEADER = "hmacsignature"
_EVENT_ID = r"[A-Za-z0-9]{1,64}"


def _token_event(body: Mapping[str, Any], payload: bytes, signature: str, secret: str | None) -> ParsedNotification:
    """A tokenization event, once its signature (over the body as sent) matches the tokenization webhook's key: a
    disabled stored payment method names the token it revokes; the others (created, updated) change nothing here."""
    if not secret:
        raise NotificationRefused(
            "The payment service has no tokenization HMAC key to verify this notification with.", pointer="/type"
        )
    try:
        valid = bool(signature) and is_valid_hmac_payload(signature, secret, payload)
    except (binascii.Error, ValueError, TypeError):
        valid = False
    if not valid:
        raise NotificationRefused(
            "The HMAC signature does not match.", pointer=f"/{SIGNATURE_HEADER}", location="header"
        )
    event_type, event_id, data = _get(body, "type"), _get(body, "eventId"), _get(body, "data")
    stored = _get(data, "storedPaymentMethodId")
    if not isinstance(event_type, str) or TOKEN_EVENT.fullmatch(event_type) is None:
        raise NotificationRefused("`type` is not an Adyen tokenization event.", pointer="/type")
    if not isinstance(event_id, str) or re.fullmatch(_EVENT_ID, event_id, flags=re.ASCII) is None:
        raise NotificationRefused("`eventId` is not what Adyen sends.", pointer="/eventId")
    if not isinstance(stored, str) or re.fullmatch(_OTHER_REFERENCE, stored, flags=re.ASCII) is None:
        raise NotificationRefused("`data.storedPaymentMethodId` is not what Adyen sends.", pointer="/data")
    return ParsedNotification(
        event_id=event_id,
        event_type=event_type,
        object_id=stored,
        reference=str(_get(data, "shopperReference") or "") or None,
        data=dict(body),
        revoked_token=stored if event_type == DISABLED_EVENT else None,
    )


# Adyen's payout events: the payout was paid (PAYOUT_THIRDPARTY, `success` says whether it went through), or not
# (declined, or expired unconfirmed). Each names our reference (the payout's id) as `merchantReference`.
_PAYOUT_EVENTS = frozenset({"PAYOUT_THIRDPARTY", "PAYOUT_DECLINE", "PAYOUT_EXPIRE"})


def _notified_payout(item: Mapping[str, Any]) -> NotifiedPayout | None:
    reference = str(_get(item, "merchantReference") or "")
    if item.get("eventCode") not in _PAYOUT_EVENTS or not reference:
        return None
    paid = item["eventCode"] == "PAYOUT_THIRDPARTY" and item.get("success") == "true"
    reason = str(_get(item, "reason") or "")[:255] or None
    return NotifiedPayout(reference=reference, paid=paid, processor_reference=str(item["pspReference"]), reason=reason)


def _available_report(item: Mapping[str, Any]) -> AvailableReport | None:
    """REPORT_AVAILABLE names the report's file in `pspReference` and the URL to download it from in `reason`."""
    if item.get("eventCode") != "REPORT_AVAILABLE" or item.get("success") != "true":
        return None
    return AvailableReport(name=str(item["pspReference"]), url=str(_get(item, "reason") or ""))


# The shapes of the fields Adyen's HMAC signs, joined by ':' (Adyen's webhook document and its "Verify HMAC
# signatures" page). Only `merchantReference` may hold a ':' (ours do: `<transaction>:capture`); every other signed
# field is colon-free, so no field's boundary can move while the signed string stays the same.
_SIGNED_SHAPES: dict[str, str] = {
    # "Adyen's 16-character unique reference" for every event about a payment this server acts on.
    "pspReference": r"[A-Za-z0-9]{16}",
    "originalReference": r"(?:[A-Za-z0-9]{16})?",
    "merchantAccountCode": MERCHANT_ACCOUNT.pattern,
    # Ours, or one given in the Customer Area: Adyen's `reference` has at most 80 characters.
    "merchantReference": r"[\x20-\x7e]{0,80}",
    "eventCode": r"[A-Z][A-Z_]{0,63}",
    "success": r"true|false",
}
# Events this server does not act on may name other objects in `pspReference` (a report's file name, a stored
# payment's token): any printable ASCII but the space and ':'.
_OTHER_REFERENCE = r"[\x21-\x39\x3b-\x7e]{1,255}"
_CURRENCY = r"[A-Z]{3}"


def _check_signed_fields(item: Mapping[str, Any], amount: Mapping[str, Any]) -> None:
    """Refuse (naming it) the first signed field without its shape, before the signature or anything else trusts it."""
    event_code = item.get("eventCode")
    acted_on = (
        event_code == "AUTHORISATION"
        or event_code in _DISPUTE_EVENTS
        or any(event_code == code for code, _ in _NOTIFIED_CHANGES)
    )
    for name, shape in _SIGNED_SHAPES.items():
        value = item.get(name, "")
        if name in ("pspReference", "originalReference") and not acted_on:
            shape = _OTHER_REFERENCE if name == "pspReference" else f"(?:{_OTHER_REFERENCE})?"
        if not isinstance(value, str) or re.fullmatch(shape, value, flags=re.ASCII) is None:
            raise NotificationRefused(f"`{name}` is not what Adyen sends.", pointer=f"{ITEM_POINTER}/{name}")
    value = amount.get("value")
    if not is_notified_amount(value):
        raise NotificationRefused(
            "`amount.value` is not an amount Adyen sends (minor units, never negative).",
            pointer=f"{ITEM_POINTER}/amount/value",
        )
    currency = amount.get("currency")
    if not isinstance(currency, str) or re.fullmatch(_CURRENCY, currency, flags=re.ASCII) is None:
        raise NotificationRefused(
            "`amount.currency` is not a currency code.", pointer=f"{ITEM_POINTER}/amount/currency"
        )


# What a notification (its event code and success flag) means for a payment. A failed cancel changes nothing: the
# payment stays as it was at Adyen.
_NOTIFIED_CHANGES: dict[tuple[str, bool], str] = {
    ("CAPTURE", True): PaymentChange.CAPTURED,
    ("CAPTURE", False): PaymentChange.CAPTURE_FAILED,
    ("CAPTURE_FAILED", True): PaymentChange.CAPTURE_FAILED,
    ("CANCELLATION", True): PaymentChange.VOIDED,
    ("REFUND", True): PaymentChange.REFUNDED,
    ("REFUND", False): PaymentChange.REFUND_FAILED,
    ("REFUND_FAILED", True): PaymentChange.REFUND_FAILED,
    ("REFUNDED_REVERSED", True): PaymentChange.REFUND_FAILED,
}


def _notified_authorization(item: Mapping[str, Any], payment: str) -> ConnectorResult:
    """AUTHORISATION's word on a payment: authorised, or refused for the `reason` it gives (Adyen's words; the
    notification carries no refusal code, so the error is the issuer's decline)."""
    if str(_get(item, "success") or "") == "true":
        return ConnectorResult(
            outcome=Outcome.APPROVED,
            processor_reference=payment,
            raw_response_code="Authorised",
            raw_response_description="Authorised (Adyen's AUTHORISATION notification)",
        )
    return ConnectorResult(
        outcome=Outcome.DECLINED,
        processor_reference=payment,
        error_code=DEFAULT_REFUSAL,
        raw_response_code="Refused",
        raw_response_description=str(_get(item, "reason") or "Refused")[:255],
    )


# Adyen's dispute notifications (its webhook document's `DisputesNotificationRequestItem`; "Dispute notifications" in
# its disputes guide): the state each event code says when the item has no `disputeStatus`. The dispute keeps its
# `pspReference` through its notifications; `originalReference` names the payment. DISPUTE_DEFENSE_PERIOD_ENDED moves
# no state by itself: what happens next (a loss, or a decision on the defence) comes in its own notification.
_DISPUTE_EVENTS: dict[str, str | None] = {
    "REQUEST_FOR_INFORMATION": DisputeState.INQUIRY,
    "NOTIFICATION_OF_CHARGEBACK": DisputeState.NEEDS_RESPONSE,
    "CHARGEBACK": DisputeState.NEEDS_RESPONSE,
    "CHARGEBACK_REVERSED": DisputeState.WON,
    "SECOND_CHARGEBACK": DisputeState.LOST,
    "PREARBITRATION_WON": DisputeState.WON,
    "PREARBITRATION_LOST": DisputeState.LOST,
    "DISPUTE_DEFENSE_PERIOD_ENDED": None,
}
# `additionalData.disputeStatus` (the document's enum), which says more than the event code on a CHARGEBACK (answered
# or not, accepted, lost) and on DISPUTE_DEFENSE_PERIOD_ENDED.
_DISPUTE_STATUSES = {
    "Unresponded": DisputeState.NEEDS_RESPONSE,
    "Undefended": DisputeState.NEEDS_RESPONSE,
    "Pending": DisputeState.UNDER_REVIEW,
    "Responded": DisputeState.UNDER_REVIEW,
    "Accepted": DisputeState.ACCEPTED,
    "Expired": DisputeState.LOST,
    "Lost": DisputeState.LOST,
    "Won": DisputeState.WON,
}
_STATUS_DECIDES = ("CHARGEBACK", "DISPUTE_DEFENSE_PERIOD_ENDED")


def _notified_dispute(item: Mapping[str, Any], amount: Mapping[str, Any]) -> NotifiedDispute:
    """The dispute a dispute notification tells of. Its time (`eventDate`) orders facts that arrive out of order: a
    notification without one, or with one outside the window around now (`dispute_fact_time`), is refused, naming
    it."""
    extra = _get(item, "additionalData") or {}
    event_code = str(item["eventCode"])
    state = _DISPUTE_EVENTS[event_code]
    if event_code in _STATUS_DECIDES:
        state = _DISPUTE_STATUSES.get(str(_get(extra, "disputeStatus")), state)
        if event_code == "CHARGEBACK" and _get(extra, "defendable") == "false" and state == DisputeState.NEEDS_RESPONSE:
            state = DisputeState.LOST  # nothing can be answered: the money stays with the bank
    occurred = _datetime(_get(item, "eventDate"))
    if occurred is None:
        raise NotificationRefused("`eventDate` is not a date-time.", pointer=f"{ITEM_POINTER}/eventDate")
    occurred = dispute_fact_time(occurred, pointer=f"{ITEM_POINTER}/eventDate")  # unsigned: held to a window
    reason = _get(extra, "chargebackReasonCode") or _get(extra, "rfiReasonCode") or _get(extra, "nofReasonCode")
    return NotifiedDispute(
        id=str(item["pspReference"]),
        state=state,
        reason=str(reason)[:255] if reason else None,
        amount=amount["value"],
        currency=amount["currency"],
        due_at=_datetime(_get(extra, "defensePeriodEndsAt")),
        occurred_at=occurred,
    )


def _datetime(value: Any) -> datetime | None:
    """An ISO 8601 date-time with its offset, as Adyen writes them; None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None
