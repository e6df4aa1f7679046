"""Disputes end to end on a live server: Stripe's and Adyen's signed dispute notifications posted to each service's
`webhook_url` over HTTP, through a whole lifecycle (opened, answered, won at Stripe; opened and lost at Adyen); our
own webhooks reach a local receiver, verified with the official SDK's `verify_webhook`; the SDK reads the
transactions `disputed` and is refused a refund of the money the bank took back."""

from __future__ import annotations

import urllib.request

import pytest
from gr4vy import errors
from gr4vy.webhooks import verify_webhook

from paymentservices.processors.adyen.tests.test_disputes import _dispute
from paymentservices.processors.adyen.tests.test_inbound import _adyen
from paymentservices.processors.stripe.tests.test_disputes import INTENT, _dispute_event, _stripe
from paymentservices.processors.stripe.tests.test_notifications import _signature
from transactions.tests.factories import TransactionFactory
from webhooks.selectors import forget_active_subscriptions
from webhooks.services.subscriptions import webhook_subscription_secret
from webhooks.tests.conftest import run_tasks
from webhooks.tests.factories import subscription_for
from webhooks.tests.receiver import running_receiver

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver(settings, merchant_account):
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    forget_active_subscriptions()
    with running_receiver() as running:
        running.subscription = subscription_for(merchant_account, running.url)
        yield running
    forget_active_subscriptions()


def _notify(live_server, service, payload: bytes, **headers) -> int:
    request = urllib.request.Request(  # noqa: S310 (the test's own server)
        f"{live_server.url}/inbound/payment-services/{service.pk}/notifications",
        data=payload,
        headers={"Content-Type": "application/json", **headers},
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 (the test's own server)
        return response.status


def _delivered(receiver) -> list[tuple[str, str]]:
    """Our webhooks the receiver got so far, each verified with the SDK, as (event name, transaction id)."""
    run_tasks()
    secret = webhook_subscription_secret(subscription=receiver.subscription)
    for item in receiver.received:
        verify_webhook(
            item.body,
            secret,
            item.headers["X-Gr4vy-Webhook-Signatures"],
            item.headers["X-Gr4vy-Webhook-Timestamp"],
            300,
        )
    return [(item.json["name"], item.json["target"]["id"]) for item in receiver.received]


def test_a_dispute_at_stripe_is_won_and_one_at_adyen_is_lost(live_server, sdk, merchant_account, receiver):
    stripe, adyen = _stripe(merchant_account), _adyen(merchant_account)
    at_stripe = TransactionFactory(
        merchant_account=merchant_account, payment_service=stripe, captured=True, payment_service_transaction_id=INTENT
    )
    at_adyen = TransactionFactory(
        merchant_account=merchant_account,
        payment_service=adyen,
        captured=True,
        currency="EUR",
        payment_service_transaction_id="993617895204576J",
    )

    def stripe_says(kind: str, status: str, after: int) -> None:
        payload = _dispute_event(kind, status, after=after)
        assert _notify(live_server, stripe, payload, **{"Stripe-Signature": _signature(payload)}) == 200

    stripe_says("created", "needs_response", 0)
    assert sdk.transactions.get(transaction_id=str(at_stripe.pk)).disputed is True
    stripe_says("updated", "under_review", 60)
    stripe_says("closed", "won", 120)
    stripe_says("closed", "won", 120)  # resent

    assert _notify(live_server, adyen, _dispute("NOTIFICATION_OF_CHARGEBACK", at_adyen, hour=1)) == 200
    assert _notify(live_server, adyen, _dispute("CHARGEBACK", at_adyen, hour=2, disputeStatus="Lost")) == 200

    stripe_id, adyen_id = str(at_stripe.pk), str(at_adyen.pk)
    assert _delivered(receiver) == [
        ("transaction.dispute-opened", stripe_id),
        ("transaction.dispute-updated", stripe_id),
        ("transaction.dispute-won", stripe_id),
        ("transaction.dispute-opened", adyen_id),
        ("transaction.dispute-lost", adyen_id),
    ]
    assert [item.json["target"]["disputed"] for item in receiver.received][-1] is True
    assert sdk.transactions.get(transaction_id=stripe_id).disputed is False
    assert sdk.transactions.get(transaction_id=adyen_id).disputed is True
    assert [t.id for t in sdk.transactions.list(disputed=True).result.items] == [adyen_id]
    with pytest.raises(errors.Error409) as refused:
        sdk.transactions.refunds.create(transaction_id=adyen_id)
    assert "took back 1299" in str(refused.value)
