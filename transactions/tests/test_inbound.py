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
from transactions.tests.factories import TransactionFactory
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
