"""A capture, cancel or refund made at Stripe itself reaches the transaction it authorized: Stripe's signed
notification to the service's `webhook_url` moves the transaction, with an event and our own webhook (the outbox);
a resent one changes nothing more; a forged one is refused and changes nothing. (localstripe signs and sends the
capture itself: tests/test_stripe_payments.py.)"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid

import pytest

from payments.outbox.models import OutboxEvent
from payments.tests.assertions import assert_error
from paymentservices.models import InboundNotification
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Refund, Transaction, TransactionEvent
from transactions.tests.factories import RefundFactory, TransactionFactory
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db

WEBHOOK_SECRET = "whsec_test_inbound_0123"
INTENT = "pi_inbound_1"


@pytest.fixture
def service(merchant_account):
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        fields=[
            {"key": "secret_key", "value": "sk_test_inbound_0123"},
            {"key": "webhook_secret", "value": WEBHOOK_SECRET},
        ],
    )


@pytest.fixture
def authorized(service, merchant_account) -> Transaction:
    return TransactionFactory(
        merchant_account=merchant_account,
        payment_service=service,
        authorized=True,
        payment_service_transaction_id=INTENT,
    )


def _event(event_type: str, obj: dict, *, event_id: str | None = None) -> bytes:
    body = {"id": event_id or f"evt_{uuid.uuid4().hex}", "object": "event", "type": event_type}
    return json.dumps({**body, "data": {"object": obj}}).encode()


def _intent(txn: Transaction, status: str, **fields) -> dict:
    return {
        "id": INTENT,
        "object": "payment_intent",
        "status": status,
        "metadata": {"reference": str(txn.pk)},
        **fields,
    }


def _signature(payload: bytes, secret: str = WEBHOOK_SECRET) -> str:
    timestamp = int(time.time())
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def _post(client, service, payload: bytes, signature: str):
    path = f"/inbound/payment-services/{service.pk}/notifications"
    return client.post(path, payload, content_type="application/json", HTTP_STRIPE_SIGNATURE=signature)


def _names(txn: Transaction) -> list[str]:
    return list(TransactionEvent.objects.filter(transaction=txn).values_list("name", flat=True))


def test_a_capture_at_stripe_captures_the_transaction_once(client, service, authorized, merchant_account, settings):
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    subscription_for(merchant_account, "http://127.0.0.1:9/hook")
    payload = _event("payment_intent.succeeded", _intent(authorized, "succeeded", amount_received=1000))

    first = _post(client, service, payload, _signature(payload))
    again = _post(client, service, payload, _signature(payload))  # Stripe resends it

    assert (first.status_code, again.status_code) == (200, 200)
    txn = Transaction.objects.get(pk=authorized.pk)
    assert (txn.status, txn.captured_amount) == ("capture_succeeded", 1000)
    assert _names(txn) == ["capture_succeeded"]
    event = TransactionEvent.objects.get(transaction=txn)
    assert (event.actor_type, event.details["notification"]) == ("system", "payment_intent.succeeded")
    assert OutboxEvent.objects.count() == 1  # our own webhook, once


def test_a_cancel_at_stripe_voids_the_transaction(client, service, authorized):
    payload = _event("payment_intent.canceled", _intent(authorized, "canceled"))

    assert _post(client, service, payload, _signature(payload)).status_code == 200

    txn = Transaction.objects.get(pk=authorized.pk)
    assert (txn.status, txn.voided_at is not None) == ("authorization_voided", True)


def test_a_refund_at_stripe_becomes_a_refund_of_what_ours_do_not_account_for(client, service, merchant_account):
    txn = TransactionFactory(
        merchant_account=merchant_account, payment_service=service, captured=True, payment_service_transaction_id=INTENT
    )
    charge = {"id": "ch_1", "object": "charge", "payment_intent": INTENT, "amount_refunded": 300, "metadata": {}}
    payload = _event("charge.refunded", charge)
    more = _event("charge.refunded", {**charge, "amount_refunded": 500})

    _post(client, service, payload, _signature(payload))
    _post(client, service, more, _signature(more))
    _post(client, service, more, _signature(more))

    assert sorted(Refund.objects.filter(transaction=txn).values_list("amount", "status")) == [
        (200, "succeeded"),
        (300, "succeeded"),
    ]
    assert Transaction.objects.get(pk=txn.pk).refunded_amount == 500


def test_an_event_our_own_request_is_recording_changes_nothing(client, service, merchant_account):
    """A capture that is ours, still being recorded (capture pending): our request records Stripe's answer."""
    txn = TransactionFactory(
        merchant_account=merchant_account,
        payment_service=service,
        authorized=True,
        status="capture_pending",
        payment_service_transaction_id=INTENT,
    )
    payload = _event("payment_intent.succeeded", _intent(txn, "succeeded", amount_received=1299))

    assert _post(client, service, payload, _signature(payload)).status_code == 200

    assert Transaction.objects.get(pk=txn.pk).status == "capture_pending"
    assert _names(txn) == []


def test_another_services_payment_is_not_touched(client, service, merchant_account):
    other = PaymentServiceFactory(merchant_account=merchant_account)
    txn = TransactionFactory(
        merchant_account=merchant_account, payment_service=other, authorized=True, payment_service_transaction_id=INTENT
    )
    payload = _event("payment_intent.succeeded", _intent(txn, "succeeded", amount_received=1299))

    assert _post(client, service, payload, _signature(payload)).status_code == 200

    assert Transaction.objects.get(pk=txn.pk).status == "authorization_succeeded"


@pytest.mark.parametrize("forgery", ["another-secret", "altered-body"])
def test_a_forged_notification_is_refused_and_changes_nothing(client, service, authorized, forgery):
    payload = _event("payment_intent.succeeded", _intent(authorized, "succeeded", amount_received=1299))
    signature = _signature(payload, "whsec_someone_else") if forgery == "another-secret" else _signature(payload)
    if forgery == "altered-body":
        payload = payload.replace(b'"succeeded"', b'"succeeded" ')

    assert_error(_post(client, service, payload, signature), 400, "/stripe-signature", location="header")
    assert Transaction.objects.get(pk=authorized.pk).status == "authorization_succeeded"
    assert not InboundNotification.objects.exists()
    assert _names(authorized) == []


# --- amounts: missing, zero and negative are different facts ------------------------------------------------------


def test_a_partial_capture_at_stripe_is_recorded_at_what_stripe_received(client, service, merchant_account):
    txn = TransactionFactory(
        merchant_account=merchant_account,
        payment_service=service,
        authorized=True,
        amount=1000,
        payment_service_transaction_id=INTENT,
    )
    payload = _event("payment_intent.succeeded", _intent(txn, "succeeded", amount=1000, amount_received=600))

    assert _post(client, service, payload, _signature(payload)).status_code == 200

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("capture_succeeded", 600)


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"amount": 1299}, "it says no amount captured: the processor is asked what it captured"),
        ({"amount": 1299, "amount_received": 0}, "it captured 0"),
    ],
    ids=["amount-received-missing", "amount-received-zero"],
)
def test_a_capture_that_says_no_amount_is_not_recorded_as_the_authorized_amount(
    client, service, authorized, fields, why
):
    payload = _event("payment_intent.succeeded", _intent(authorized, "succeeded", **fields))

    assert _post(client, service, payload, _signature(payload)).status_code == 200

    txn = Transaction.objects.get(pk=authorized.pk)
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    event = TransactionEvent.objects.get(transaction=txn)
    assert (event.name, event.details["unapplied"], event.details["notification"]) == (
        "processor_notification",
        why,
        "payment_intent.succeeded",
    )


@pytest.mark.parametrize(
    ("event_type", "obj", "pointer"),
    [
        ("payment_intent.succeeded", {"amount_received": -50}, "/data/object/amount_received"),
        ("payment_intent.succeeded", {"amount_received": "600"}, "/data/object/amount_received"),
        ("payment_intent.succeeded", {"amount_received": True}, "/data/object/amount_received"),
        ("charge.refunded", {"amount_refunded": -1}, "/data/object/amount_refunded"),
        ("charge.refunded", {"amount_refunded": 100, "amount_captured": -600}, "/data/object/amount_captured"),
        (
            "charge.refunded",
            {"amount_refunded": 100, "refunds": {"data": [{"id": "re_1", "amount": -100, "created": 1}]}},
            "/data/object/refunds/data/0/amount",
        ),
    ],
    ids=[
        "negative-received",
        "received-as-text",
        "received-as-boolean",
        "negative-refunded",
        "negative-captured",
        "negative-refund",
    ],
)
def test_a_signed_event_with_an_impossible_amount_is_refused_and_changes_nothing(
    client, service, merchant_account, event_type, obj, pointer
):
    txn = TransactionFactory(
        merchant_account=merchant_account, payment_service=service, captured=True, payment_service_transaction_id=INTENT
    )
    before = Transaction.objects.values().get(pk=txn.pk)
    body = {"id": "ch_1", "object": "charge", "payment_intent": INTENT, "captured": True, "amount": 1299, **obj}
    if event_type == "payment_intent.succeeded":
        body = _intent(txn, "succeeded", **obj)
    payload = _event(event_type, body)

    assert_error(_post(client, service, payload, _signature(payload)), 400, pointer, location="body")
    assert Transaction.objects.values().get(pk=txn.pk) == before
    assert (InboundNotification.objects.count(), Refund.objects.count(), _names(txn)) == (0, 0, [])


# --- refunds: what Stripe refunded, never the charge's total -------------------------------------------------------

RELEASED_AT = 1_700_000_000  # when the partial capture released the rest (Stripe's clock)


@pytest.fixture
def partly_captured(service, merchant_account) -> tuple[Transaction, Refund]:
    """Authorized 1,000 at Stripe, captured 600 (Stripe released the other 400), refunded 100 by us."""
    txn = TransactionFactory(
        merchant_account=merchant_account,
        payment_service=service,
        captured=True,
        amount=1000,
        captured_amount=600,
        refunded_amount=100,
        payment_service_transaction_id=INTENT,
    )
    ours = RefundFactory(transaction=txn, amount=100, payment_service_refund_id="re_ours")
    return txn, ours


def _charge(amount_refunded: int, refunds: list[dict] | None = None) -> dict:
    charge = {
        "id": "ch_partly",
        "object": "charge",
        "payment_intent": INTENT,
        "captured": True,
        "amount": 1000,
        "amount_captured": 600,
        "amount_refunded": amount_refunded,
        "metadata": {},
    }
    if refunds is not None:
        charge["refunds"] = {"object": "list", "data": refunds, "has_more": False}
    return charge


def _refund(refund_id: str, amount: int, created: int, reference: str | None = None, status: str = "succeeded"):
    return {
        "id": refund_id,
        "object": "refund",
        "amount": amount,
        "created": created,
        "status": status,
        "metadata": {"reference": reference} if reference else {},
    }


def _release() -> dict:
    """Stripe before its API version 2025-03-31: the released 400 is a refund object of its own."""
    return _refund("re_release", 400, RELEASED_AT)


def _send(client, service, charge: dict) -> None:
    payload = _event("charge.refunded", charge)
    assert _post(client, service, payload, _signature(payload)).status_code == 200


def _refunds(txn: Transaction) -> list[tuple[int, str | None]]:
    return sorted(Refund.objects.filter(transaction=txn).values_list("amount", "payment_service_refund_id"))


@pytest.mark.parametrize("listed", [False, True], ids=["total-only", "refunds-listed"])
def test_the_remainder_a_partial_capture_released_is_no_refund(client, service, partly_captured, listed):
    """Stripe counts the released 400 in `amount_refunded` (500 = 400 released + our 100): nothing more happened."""
    txn, ours = partly_captured
    refunds = [_release(), _refund("re_ours", 100, RELEASED_AT + 60, reference=str(ours.pk))] if listed else None

    _send(client, service, _charge(500, refunds))

    txn.refresh_from_db()
    assert (txn.refunded_amount, _refunds(txn)) == (100, [(100, "re_ours")])
    assert txn.captured_amount - txn.refunded_amount == 500  # the next honest refund of 200 fits


def test_a_refund_made_in_stripes_dashboard_is_booked_exactly_once(client, service, partly_captured):
    txn, ours = partly_captured
    listed = [
        _refund("re_dashboard", 150, RELEASED_AT + 120),
        _refund("re_ours", 100, RELEASED_AT + 60, reference=str(ours.pk)),
        _release(),
    ]

    _send(client, service, _charge(650, listed))
    _send(client, service, _charge(650, listed))  # resent
    _send(client, service, _charge(650))  # and told again by its total only

    txn.refresh_from_db()
    assert (txn.refunded_amount, _refunds(txn)) == (250, [(100, "re_ours"), (150, "re_dashboard")])


def test_a_refund_of_exactly_the_released_remainder_is_still_booked(client, service, partly_captured):
    """Only the earliest refund of the remainder's amount is the release; a later one (the dashboard's) is a refund."""
    txn, _ = partly_captured
    listed = [_refund("re_dashboard", 400, RELEASED_AT + 300), _release()]

    _send(client, service, _charge(900, listed))

    txn.refresh_from_db()
    assert (txn.refunded_amount, _refunds(txn)) == (500, [(100, "re_ours"), (400, "re_dashboard")])


def test_a_refund_that_failed_or_is_ours_on_its_way_is_not_booked(client, service, partly_captured):
    txn, _ = partly_captured
    on_its_way = RefundFactory(transaction=txn, amount=50, status="processing")
    Transaction.objects.filter(pk=txn.pk).update(refunded_amount=150)
    listed = [
        _refund("re_failed", 70, RELEASED_AT + 30, status="failed"),
        _refund("re_new_ours", 50, RELEASED_AT + 90, reference=str(on_its_way.pk), status="pending"),
        _refund("re_ours", 100, RELEASED_AT + 60, reference="not-ours-but-known-by-id"),
        _release(),
    ]

    _send(client, service, _charge(550, listed))

    txn.refresh_from_db()
    assert txn.refunded_amount == 150
    assert Refund.objects.filter(transaction=txn).count() == 2


@pytest.mark.parametrize(
    ("amount_refunded", "booked"),
    [(250, 150), (650, 150)],
    ids=["stripe-not-counting-the-release", "stripe-counting-the-release"],
)
def test_without_refund_objects_the_total_is_read_net_of_the_released_remainder(
    client, service, partly_captured, amount_refunded, booked
):
    """From API version 2025-03-31 Stripe no longer counts the release (250 = our 100 + 150 in the dashboard);
    before, it did (650 = 400 released + 100 + 150). Either way 150 was refunded in the dashboard."""
    txn, _ = partly_captured

    _send(client, service, _charge(amount_refunded))

    txn.refresh_from_db()
    assert (txn.refunded_amount, _refunds(txn)) == (100 + booked, [(100, "re_ours"), (booked, None)])
