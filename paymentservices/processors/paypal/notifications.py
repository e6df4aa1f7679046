"""PayPal's webhook events to a service's webhook URL: verified by PayPal itself (its Notifications API v1
`verify-webhook-signature`, asked with the service's `webhook_id` and app credentials), then read as a
`ParsedNotification`.

PayPal signs a notification with a certificate of its own and names the webhook it was sent to only through the
signature, so the one check that holds is PayPal's word: the transmission headers and the event as received are sent
back to PayPal with the webhook's id, and only its `SUCCESS` lets the event in. Nothing in a body is trusted before.

The events read (PayPal's "Webhook event names"; their resources are Orders v2 and Payments v2 objects and a
Disputes v1 dispute):

- `CHECKOUT.ORDER.APPROVED`: the buyer approved the order (the return, or the expiry job's read of the order,
  authorizes it); it moves nothing by itself.
- `PAYMENT.AUTHORIZATION.CREATED`: PayPal's authorization of the order, the answer to a request that may have died
  (as Adyen's AUTHORISATION); `PENDING` is not a decision, and is not told. `VOIDED`: the authorization released.
- `PAYMENT.CAPTURE.COMPLETED` and `PENDING`: a capture (PayPal's pending capture is taken, as its answer to our own
  capture is); `DENIED`: a pending capture did not happen. A capture names its authorization
  (`supplementary_data.related_ids.authorization_id`, else its `up` link) and from then on names the payment.
- `PAYMENT.CAPTURE.REFUNDED` and `REVERSED`: a refund object (a reversal is money PayPal sent back to the buyer
  itself), each told on its own, naming its capture by its `up` link.
- `CUSTOMER.DISPUTE.CREATED`, `UPDATED` and `RESOLVED`: the dispute as it stands, naming the capture it disputes
  (`disputed_transactions[0].seller_transaction_id`) and our reference (`custom`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from payments.choices import DisputeState
from payments.connectors.base import ConnectorResult, Outcome
from payments.money import currency_exponent
from paymentservices.processors.calls import NoAnswer, dispute_fact_time, is_notified_amount
from paymentservices.processors.calls import field_of as _get
from paymentservices.processors.paypal.connector import AUTHORIZED, PayPalConnector
from paymentservices.processors.seam import NotificationRefused, NotifiedDispute, ParsedNotification, PaymentChange

# PayPal's transmission headers, and the names `verify-webhook-signature` takes them by.
TRANSMISSION = {
    "paypal-auth-algo": "auth_algo",
    "paypal-cert-url": "cert_url",
    "paypal-transmission-id": "transmission_id",
    "paypal-transmission-sig": "transmission_sig",
    "paypal-transmission-time": "transmission_time",
}
SIGNATURE = {"pointer": "/paypal-transmission-sig", "location": "header"}
# PayPal's ids of orders, authorizations, captures, refunds and disputes: letters, digits and '-'.
_ID = re.compile(r"[A-Za-z0-9-]{1,64}", flags=re.ASCII)
_CURRENCY = re.compile(r"[A-Z]{3}", flags=re.ASCII)
_VALUE = re.compile(r"\d{1,32}(?:\.\d{1,4})?", flags=re.ASCII)


def parse_notification(
    *, payload: bytes, headers: Mapping[str, str], webhook_id: str, credentials: Mapping[str, str]
) -> ParsedNotification:
    """The event PayPal says it sent to the webhook `webhook_id`; anything else raises `NotificationRefused` (an
    unsigned or forged event, one PayPal cannot be asked about now: PayPal sends it again)."""
    transmission = {name: headers.get(header) or "" for header, name in TRANSMISSION.items()}
    missing = next((header for header, name in TRANSMISSION.items() if not transmission[name]), None)
    if missing is not None:
        raise NotificationRefused(f"The {missing} header is missing.", pointer=f"/{missing}", location="header")
    try:
        event = json.loads(payload)
    except ValueError:
        raise NotificationRefused("The body is not a PayPal event.", pointer="/") from None
    if not isinstance(event, dict) or not isinstance(event.get("resource"), dict):
        raise NotificationRefused("The body is not a PayPal event.", pointer="/resource")
    connector = PayPalConnector(
        client_id=credentials.get("client_id", ""), client_secret=credentials.get("client_secret", "")
    )
    try:
        verified = connector.verify_notification(webhook_id=webhook_id, transmission=transmission, event=event)
    except NoAnswer:
        raise NotificationRefused("PayPal could not be asked to verify the notification now.", **SIGNATURE) from None
    if not verified:
        raise NotificationRefused("PayPal did not verify the notification's signature.", **SIGNATURE)
    return _parsed(event)


def _parsed(event: Mapping[str, Any]) -> ParsedNotification:
    event_id, event_type, resource = event.get("id"), event.get("event_type"), event["resource"]
    if not isinstance(event_id, str) or not event_id or not isinstance(event_type, str) or not event_type:
        raise NotificationRefused("The event has no id or type.", pointer="/id")
    # Our reference: the `custom_id` the order's purchase unit carries (the transaction's id; its authorizations and
    # captures carry it too), or a refund's (our refund's id); a reader may say where else it is.
    said: dict[str, Any] = {"reference": _reference(_get(resource, "custom_id"))}
    if event_type in _READERS:
        said.update(_READERS[event_type](resource))
    object_id = _get(resource, "id") or _get(resource, "dispute_id")
    return ParsedNotification(
        event_id=event_id[:255],
        event_type=event_type[:255],
        object_id=str(object_id or "")[:255],
        data=resource,
        **said,
    )


def _reference(value: Any) -> str | None:
    return value[:255] if isinstance(value, str) and value else None


def _id(resource: Any, key: str, *, pointer: str) -> str:
    value = _get(resource, key)
    if not isinstance(value, str) or _ID.fullmatch(value) is None:
        raise NotificationRefused(f"`{key}` is not a PayPal id.", pointer=f"{pointer}/{key}")
    return value


def _amount(money: Any, *, pointer: str) -> tuple[int, str]:
    """PayPal's `Money` (a currency code and a decimal string in major units) in minor units; refused, naming it,
    when it is not one or has more decimals than the currency."""
    currency, value = _get(money, "currency_code"), _get(money, "value")
    if not isinstance(currency, str) or _CURRENCY.fullmatch(currency) is None:
        raise NotificationRefused("`currency_code` is not a currency code.", pointer=f"{pointer}/currency_code")
    if not isinstance(value, str) or _VALUE.fullmatch(value) is None:
        raise NotificationRefused("`value` is not an amount PayPal sends.", pointer=f"{pointer}/value")
    try:
        minor = Decimal(value).scaleb(currency_exponent(currency))
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise NotificationRefused("`value` is not an amount.", pointer=f"{pointer}/value") from None
    if minor != minor.to_integral_value() or not is_notified_amount(int(minor)):
        raise NotificationRefused(f"`value` is not an amount of {currency}.", pointer=f"{pointer}/value")
    return int(minor), currency


def _up(resource: Any, collection: str) -> str | None:
    """The id of the object a resource's `up` link names in `collection` (`authorizations`, `captures`)."""
    links = _get(resource, "links")
    for link in links if isinstance(links, list) else []:
        href = _get(link, "href")
        if _get(link, "rel") == "up" and isinstance(href, str):
            found = re.search(rf"/v2/payments/{collection}/([A-Za-z0-9-]{{1,64}})$", href, flags=re.ASCII)
            if found:
                return found.group(1)
    return None


def _related(resource: Any, key: str) -> str | None:
    value = _get(_get(_get(resource, "supplementary_data"), "related_ids"), key)
    return value if isinstance(value, str) and _ID.fullmatch(value) else None


def _order_approved(order: Any) -> dict[str, Any]:
    units = _get(order, "purchase_units")
    unit = units[0] if isinstance(units, list) and units else {}
    order_id = _id(order, "id", pointer="/resource")
    return {"payment_reference": order_id, "reference": _reference(_get(unit, "custom_id"))}


def _authorization_created(authorization: Any) -> dict[str, Any]:
    """The authorization PayPal made: an approval naming it while PayPal holds it (`CREATED`, or already captured);
    a `PENDING` one is no decision yet (the payment stays `processing` for PayPal's next word), and anything else
    (`DENIED`) is told as PayPal's decline."""
    authorization_id = _id(authorization, "id", pointer="/resource")
    status = str(_get(authorization, "status") or "")
    said: dict[str, Any] = {"payment_reference": authorization_id}
    if status == "PENDING":
        return said
    approved = status in AUTHORIZED
    said["authorization"] = ConnectorResult(
        outcome=Outcome.APPROVED if approved else Outcome.DECLINED,
        processor_reference=authorization_id,
        error_code=None if approved else "declined",
        raw_response_code=status or "unknown",
        raw_response_description="PayPal's PAYMENT.AUTHORIZATION.CREATED notification",
    )
    return said


def _authorization_voided(authorization: Any) -> dict[str, Any]:
    return {"change": PaymentChange.VOIDED, "payment_reference": _id(authorization, "id", pointer="/resource")}


def _capture(change: str) -> Any:
    def read(capture: Any) -> dict[str, Any]:
        capture_id = _id(capture, "id", pointer="/resource")
        authorization = _related(capture, "authorization_id") or _up(capture, "authorizations")
        if authorization is None:
            raise NotificationRefused("The capture names no authorization.", pointer="/resource/links")
        amount, _ = _amount(_get(capture, "amount"), pointer="/resource/amount")
        said = {"change": change, "amount": amount, "payment_reference": authorization, "amount_is_total": False}
        if change == PaymentChange.CAPTURED:
            # PayPal's refunds and disputes name the capture: it names the payment from now on.
            said["renames_payment"] = capture_id
        return said

    return read


def _refunded(refund: Any) -> dict[str, Any]:
    _id(refund, "id", pointer="/resource")
    capture = _related(refund, "capture_id") or _up(refund, "captures")
    if capture is None:
        raise NotificationRefused("The refund names no capture.", pointer="/resource/links")
    amount, _ = _amount(_get(refund, "amount"), pointer="/resource/amount")
    return {
        "change": PaymentChange.REFUNDED if _get(refund, "status") in ("COMPLETED", "PENDING") else None,
        "amount": amount,
        "payment_reference": capture,
        "amount_is_total": False,  # PayPal tells each refund on its own
    }


# A dispute's `status` (Disputes v1) in the words every processor shares: open ones by its life cycle stage (an
# inquiry is no chargeback yet), a resolved one by its `dispute_outcome.outcome_code`. `OTHER` says no state.
_OPEN_STATES = {
    "OPEN": DisputeState.NEEDS_RESPONSE,
    "WAITING_FOR_SELLER_RESPONSE": DisputeState.NEEDS_RESPONSE,
    "WAITING_FOR_BUYER_RESPONSE": DisputeState.UNDER_REVIEW,
    "UNDER_REVIEW": DisputeState.UNDER_REVIEW,
}
_OUTCOMES = {
    "RESOLVED_SELLER_FAVOUR": DisputeState.WON,
    "CANCELED_BY_BUYER": DisputeState.WON,
    "DENIED": DisputeState.WON,  # the buyer's claim was denied
    "RESOLVED_BUYER_FAVOUR": DisputeState.LOST,
    "RESOLVED_WITH_PAYOUT": DisputeState.LOST,
    "ACCEPTED": DisputeState.ACCEPTED,  # the merchant accepted the claim
}


def _dispute_state(dispute: Any) -> str | None:
    status = _get(dispute, "status")
    if status == "RESOLVED":
        outcome = _get(_get(dispute, "dispute_outcome"), "outcome_code")
        if outcome not in _OUTCOMES:
            raise NotificationRefused(
                "A resolved dispute's outcome is not one PayPal documents.",
                pointer="/resource/dispute_outcome/outcome_code",
            )
        return _OUTCOMES[outcome]
    if status == "OTHER":
        return None
    if status not in _OPEN_STATES:
        raise NotificationRefused("`status` is not a dispute status PayPal documents.", pointer="/resource/status")
    stage = _get(dispute, "dispute_life_cycle_stage")
    if stage == "INQUIRY" and status != "UNDER_REVIEW":
        return DisputeState.INQUIRY
    return _OPEN_STATES[status]


def _disputed(dispute: Any) -> dict[str, Any]:
    """The dispute as it stands and the capture it disputes; one without its id, a status PayPal documents, the
    capture, an amount or its time (`update_time`, else `create_time`, within the window around now) is refused,
    naming the field."""
    dispute_id = _id(dispute, "dispute_id", pointer="/resource")
    state = _dispute_state(dispute)
    transactions = _get(dispute, "disputed_transactions")
    disputed = transactions[0] if isinstance(transactions, list) and transactions else None
    capture = _get(disputed, "seller_transaction_id")
    if not isinstance(capture, str) or _ID.fullmatch(capture) is None:
        raise NotificationRefused(
            "The dispute names no transaction of the seller.",
            pointer="/resource/disputed_transactions/0/seller_transaction_id",
        )
    amount, currency = _amount(_get(dispute, "dispute_amount"), pointer="/resource/dispute_amount")
    time_key = "update_time" if _get(dispute, "update_time") else "create_time"
    occurred = _datetime(_get(dispute, time_key))
    if occurred is None:
        raise NotificationRefused(f"`{time_key}` is not a date-time.", pointer=f"/resource/{time_key}")
    reason = _get(dispute, "reason")
    return {
        "payment_reference": capture,
        "reference": _reference(_get(disputed, "custom")),
        "dispute": NotifiedDispute(
            id=dispute_id,
            state=state,
            reason=str(reason)[:255] if reason else None,
            amount=amount,
            currency=currency,
            due_at=_datetime(_get(dispute, "seller_response_due_date")),
            occurred_at=dispute_fact_time(occurred, pointer=f"/resource/{time_key}"),
        ),
    }


def _datetime(value: Any) -> datetime | None:
    """An RFC 3339 date-time with its offset (PayPal writes `Z`); None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


_READERS: dict[str, Any] = {
    "CHECKOUT.ORDER.APPROVED": _order_approved,
    "PAYMENT.AUTHORIZATION.CREATED": _authorization_created,
    "PAYMENT.AUTHORIZATION.VOIDED": _authorization_voided,
    "PAYMENT.CAPTURE.COMPLETED": _capture(PaymentChange.CAPTURED),
    "PAYMENT.CAPTURE.PENDING": _capture(PaymentChange.CAPTURED),
    "PAYMENT.CAPTURE.DENIED": _capture(PaymentChange.CAPTURE_FAILED),
    "PAYMENT.CAPTURE.REFUNDED": _refunded,
    "PAYMENT.CAPTURE.REVERSED": _refunded,
    "CUSTOMER.DISPUTE.CREATED": _disputed,
    "CUSTOMER.DISPUTE.UPDATED": _disputed,
    "CUSTOMER.DISPUTE.RESOLVED": _disputed,
}
