"""A `payment_intent.succeeded` that does not say what Stripe received is only noted: the PaymentIntent is asked of
Stripe (through the connector, as sync asks) and what Stripe says is recorded. When Stripe cannot be asked, the
notification is kept and shown in the transaction's history for the operator: no amount is ever guessed."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid

import pytest
import stripe

from paymentservices.models import InboundNotification
from paymentservices.processors.stripe.connector import OutcomeUnknown, StripeConnector
from paymentservices.processors.stripe.tests.test_connector import KEY, _request
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.tests.factories import PaymentServiceFactory
from tests.servers import free_port
from transactions.models import Transaction, TransactionEvent
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

WEBHOOK_SECRET = "whsec_test_capture_asked_0123"


@pytest.fixture
def service(merchant_account, stripe_api):
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        fields=[{"key": "secret_key", "value": KEY}, {"key": "webhook_secret", "value": WEBHOOK_SECRET}],
    )


@pytest.fixture
def captured_at_stripe(service, stripe_api) -> Transaction:
    """Authorized here for 2500; 2000 of it captured in Stripe's dashboard."""
    authorized = StripeConnector(secret_key=KEY).authorize(_request(amount=2500))
    at_stripe = stripe.StripeClient(KEY, base_addresses={"api": stripe_api.url}, max_network_retries=0)
    at_stripe.v1.payment_intents.capture(authorized.processor_reference, params={"amount_to_capture": 2000})
    return TransactionFactory(
        merchant_account=service.merchant_account,
        payment_service=service,
        authorized=True,
        amount=2500,
        authorized_amount=2500,
        currency="USD",
        payment_service_transaction_id=authorized.processor_reference,
    )


def _succeeded_without_amount(txn: Transaction) -> bytes:
    intent = {"id": txn.payment_service_transaction_id, "object": "payment_intent", "status": "succeeded"}
    body = {"id": f"evt_{uuid.uuid4().hex}", "object": "event", "type": "payment_intent.succeeded"}
    return json.dumps({**body, "data": {"object": intent}}).encode()


def _post(client, service, payload: bytes):
    timestamp = int(time.time())
    digest = hmac.new(WEBHOOK_SECRET.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return client.post(
        f"/inbound/payment-services/{service.pk}/notifications",
        payload,
        content_type="application/json",
        HTTP_STRIPE_SIGNATURE=f"t={timestamp},v1={digest}",
    )


def _history(txn: Transaction) -> list[tuple[str, str | None]]:
    events = TransactionEvent.objects.filter(transaction=txn).order_by("created_at", "id")
    return [(event.name, event.details.get("unapplied")) for event in events]


def test_stripe_is_asked_what_it_received_and_that_is_recorded(
    client, service, captured_at_stripe, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        assert _post(client, service, _succeeded_without_amount(captured_at_stripe)).status_code == 200

    txn = Transaction.objects.get(pk=captured_at_stripe.pk)
    assert (txn.status, txn.captured_amount) == ("capture_succeeded", 2000)
    assert list(txn.captures.values_list("amount", "status")) == [(2000, "succeeded")]
    assert _history(txn) == [
        ("processor_notification", "it says no amount captured: the processor is asked what it captured"),
        ("capture_succeeded", None),
    ]
    assert TransactionEvent.objects.get(transaction=txn, name="capture_succeeded").details["amount_from"] == (
        "processor"
    )


def test_what_stripe_cannot_be_asked_about_is_kept_for_the_operator(
    client, service, captured_at_stripe, settings, django_capture_on_commit_callbacks
):
    override_processor(settings, "stripe", API_BASE=f"http://127.0.0.1:{free_port()}")  # nothing listens there

    with django_capture_on_commit_callbacks(execute=True):
        assert _post(client, service, _succeeded_without_amount(captured_at_stripe)).status_code == 200

    txn = Transaction.objects.get(pk=captured_at_stripe.pk)
    assert (txn.status, txn.captured_amount, txn.captures.count()) == ("authorization_succeeded", 0, 0)
    assert _history(txn) == [
        ("processor_notification", "it says no amount captured: the processor is asked what it captured"),
        ("processor_notification", "it says no amount captured, and the processor could not be asked"),
    ]
    assert InboundNotification.objects.filter(event_type="payment_intent.succeeded").count() == 1


def test_a_payment_intent_stripe_has_not_captured_records_nothing(
    client, service, stripe_api, django_capture_on_commit_callbacks
):
    authorized = StripeConnector(secret_key=KEY).authorize(_request(amount=2500))  # requires_capture at Stripe
    txn = TransactionFactory(
        merchant_account=service.merchant_account,
        payment_service=service,
        authorized=True,
        payment_service_transaction_id=authorized.processor_reference,
    )

    with django_capture_on_commit_callbacks(execute=True):
        assert _post(client, service, _succeeded_without_amount(txn)).status_code == 200

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    assert _history(txn)[-1] == (
        "processor_notification",
        "it says no amount captured, and the processor says it captured nothing",
    )


def test_the_connector_reads_what_stripe_received(stripe_api):
    connector = StripeConnector(secret_key=KEY)
    authorized = connector.authorize(_request(amount=2500))
    assert connector.captured_amount(processor_reference=authorized.processor_reference) == 0
    connector.capture(
        processor_reference=authorized.processor_reference, amount=1500, currency="USD", reference="r:capture"
    )

    assert connector.captured_amount(processor_reference=authorized.processor_reference) == 1500
    with pytest.raises(OutcomeUnknown):
        connector.captured_amount(processor_reference="pi_not_at_stripe")
