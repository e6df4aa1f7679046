"""Payments through a Stripe payment service, end to end: the official `gr4vy` SDK configures the service and pays
through it; localstripe (a fake Stripe, run as a real process) holds the PaymentIntents, read back with Stripe's own
library. Routing by position and currency, failover to the sandbox with Stripe stopped, a decline kept final, and a
capture made at Stripe reaching the transaction through the service's `webhook_url` (a forged one refused).
localstripe sends no event for a cancel or a refund: those notifications are signed by the tests in
transactions/tests/test_inbound.py."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

import pytest
import stripe
from gr4vy import models

from paymentservices.models import InboundNotification
from paymentservices.processors.stripe.tests.mock import FakeStripe, localstripe_connected
from transactions.models import Refund, Transaction, TransactionEvent

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "sk_test_stripe_payments_0123"
WEBHOOK_SECRET = "whsec_stripe_payments_0123"
CARD = {"method": "card", "number": "4242424242424242", "expiration_date": "12/34", "security_code": "123"}
# localstripe declines this card when it is charged (the card numbers Stripe documents for declines it approves).
DECLINED = {**CARD, "number": "4000000000000341"}


@pytest.fixture
def fake(settings) -> FakeStripe:
    with localstripe_connected(settings) as running:
        yield running


def at_stripe(fake: FakeStripe) -> stripe.StripeClient:
    """Stripe's own library, reading what the fake holds."""
    return stripe.StripeClient(SECRET, base_addresses={"api": fake.url})


def stripe_service(sdk, *, position: int = 1, currencies=("USD", "EUR"), webhook_secret: str | None = None):
    fields = [{"key": "secret_key", "value": SECRET}]
    if webhook_secret:
        fields.append({"key": "webhook_secret", "value": webhook_secret})
    created = sdk.payment_services.create(
        display_name="Stripe",
        payment_service_definition_id="stripe-card",
        fields=fields,
        accepted_currencies=list(currencies),
        accepted_countries=["US", "DE"],
    )
    return sdk.payment_services.update(payment_service_id=created.id, position=position)


def test_a_payment_sent_to_stripe_is_authorized_captured_and_partly_refunded_there(sdk, fake, merchant_account):
    service = stripe_service(sdk, position=2)  # not first: the payment names it

    created = sdk.transactions.create(amount=1299, currency="EUR", payment_method=CARD, payment_service_id=service.id)

    assert isinstance(created, models.Transaction)
    assert created.status == "authorization_succeeded"
    assert (created.payment_service.id, created.payment_service.payment_service_definition_id) == (
        service.id,
        "stripe-card",
    )
    intent = at_stripe(fake).v1.payment_intents.retrieve(created.payment_service_transaction_id)
    assert (intent.status, intent.amount, intent.currency, intent.capture_method) == (
        "requires_capture",
        1299,
        "eur",
        "manual",
    )
    assert intent.metadata["reference"] == created.id
    assert created.raw_response_code == "requires_capture"  # as Stripe gave it

    captured = sdk.transactions.capture(transaction_id=created.id, amount=1000)
    assert (captured.status, captured.captured_amount) == ("capture_succeeded", 1000)
    intent = at_stripe(fake).v1.payment_intents.retrieve(created.payment_service_transaction_id)
    assert intent.status == "succeeded"
    # The capture's own answer, as Stripe gave it (no words: Stripe gives none), no longer the authorization's.
    read = sdk.transactions.get(transaction_id=created.id)
    assert (read.raw_response_code, read.raw_response_description) == ("succeeded", None)

    refund = sdk.transactions.refunds.create(transaction_id=created.id, amount=400)
    assert (refund.status, refund.amount) == ("succeeded", 400)
    at_fake = at_stripe(fake).v1.refunds.retrieve(refund.payment_service_refund_id)
    assert (at_fake.amount, at_fake.status) == (400, "succeeded")
    assert at_fake.metadata["reference"] == refund.id


def test_a_void_cancels_the_payment_intent(sdk, fake, merchant_account):
    stripe_service(sdk)
    created = sdk.transactions.create(amount=500, currency="USD", payment_method=CARD)

    voided = sdk.transactions.void(transaction_id=created.id)

    assert voided.status == "authorization_voided"
    assert at_stripe(fake).v1.payment_intents.retrieve(created.payment_service_transaction_id).status == "canceled"


def test_routing_by_position_and_by_currency(sdk, fake, merchant_account):
    stripe_service(sdk, position=1, currencies=["EUR"])

    in_euro = sdk.transactions.create(amount=700, currency="EUR", payment_method=CARD)
    in_dollars = sdk.transactions.create(amount=700, currency="USD", payment_method=CARD)

    assert in_euro.payment_service.payment_service_definition_id == "stripe-card"
    assert in_euro.payment_service_transaction_id.startswith("pi_")
    assert in_dollars.payment_service.payment_service_definition_id == "mock-card"  # Stripe takes no USD here


def test_with_stripe_stopped_a_payment_fails_over_to_the_sandbox(sdk, fake, merchant_account):
    service = stripe_service(sdk, position=1)
    fake.stop()

    created = sdk.transactions.create(amount=900, currency="USD", payment_method=CARD)

    assert created.status == "authorization_succeeded"
    assert created.payment_service.payment_service_definition_id == "mock-card"
    failed = TransactionEvent.objects.filter(transaction_id=created.id, name="authorization_attempt_failed")
    assert [event.details["payment_service_id"] for event in failed] == [service.id]
    history = sdk.transactions.events.list(transaction_id=created.id)
    assert "payment-connector-response-transaction-authorization-failed" in [item.name for item in history.result.items]


def test_a_decline_at_stripe_is_not_retried_elsewhere(sdk, fake, merchant_account):
    stripe_service(sdk, position=1)

    declined = sdk.transactions.create(amount=900, currency="USD", payment_method=DECLINED)

    assert (declined.status, declined.payment_service.payment_service_definition_id) == (
        "authorization_declined",
        "stripe-card",
    )
    assert declined.error_code == "issuer_decline"
    assert declined.raw_response_code  # Stripe's own code, as it gave it
    assert not TransactionEvent.objects.filter(transaction_id=declined.id, name="authorization_attempt_failed")


def _register_webhook(fake: FakeStripe, url: str) -> None:
    events = "&".join(
        f"events[]={name}" for name in ("payment_intent.succeeded", "payment_intent.canceled", "charge.refunded")
    )
    body = f"url={url}&secret={WEBHOOK_SECRET}&{events}".encode()
    urllib.request.urlopen(urllib.request.Request(f"{fake.url}/_config/webhooks/ours", data=body))  # noqa: S310


def _wait_for(condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.2)


def test_a_capture_made_at_stripe_reaches_the_transaction_through_the_webhook_url(
    sdk, fake, merchant_account, live_server, settings
):
    settings.PUBLIC_BASE_URL = live_server.url
    service = stripe_service(sdk, webhook_secret=WEBHOOK_SECRET)
    _register_webhook(fake, service.webhook_url)
    created = sdk.transactions.create(amount=1500, currency="USD", payment_method=CARD)
    assert created.status == "authorization_succeeded"

    # The merchant captures in Stripe's dashboard: here, straight through Stripe's library.
    at_stripe(fake).v1.payment_intents.capture(created.payment_service_transaction_id)
    _wait_for(lambda: Transaction.objects.get(pk=created.id).status == "capture_succeeded")

    txn = Transaction.objects.get(pk=created.id)
    assert (txn.status, txn.captured_amount) == ("capture_succeeded", 1500)
    captured = TransactionEvent.objects.get(transaction_id=created.id, name="capture_succeeded")
    assert (captured.actor_type, captured.details["notification"]) == ("system", "payment_intent.succeeded")
    assert sdk.transactions.get(transaction_id=created.id).status == "capture_succeeded"

    received = InboundNotification.objects.count()

    # A forged notification (not signed with the service's secret) is refused and changes nothing.
    forged = urllib.request.Request(  # noqa: S310 - the test's own server
        service.webhook_url,
        data=b'{"id": "evt_forged", "object": "event", "type": "payment_intent.canceled", "data": {"object": {}}}',
        headers={"Content-Type": "application/json", "Stripe-Signature": "t=1,v1=00"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(forged)  # noqa: S310
    assert refused.value.code == 400
    assert Transaction.objects.get(pk=created.id).status == "capture_succeeded"
    assert InboundNotification.objects.count() == received
    assert not Refund.objects.exists()
