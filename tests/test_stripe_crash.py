"""Crash safety of a Stripe payment, with real processes: a gunicorn worker on the test's PostgreSQL database serves
a payment routed to a Stripe service (localstripe, a real process); the worker is SIGKILLed after Stripe made the
PaymentIntent and before the answer was recorded (tests/paused_wsgi.py holds it there). Recovery asks the service
recorded for the attempt, finds the PaymentIntent at Stripe and records the approval; nothing is charged twice, and
the capture goes to the same PaymentIntent."""

import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
import stripe
from django.db import connection
from django.utils import timezone

from payments.accounts.keys import mint_token
from paymentservices.processors.stripe.tests.mock import localstripe
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.services import payment_service_update
from paymentservices.tests.factories import PaymentServiceFactory
from tests.servers import database_url, gunicorn
from transactions.models import Transaction, TransactionEvent
from transactions.services.actions import transaction_capture
from transactions.services.recovery import transactions_recover_pending
from transactions.services.state import SYSTEM

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SECRET = "sk_test_crash_0123456789"
TIMEOUT_SECONDS = 60
PAUSE_SECONDS = 45  # far longer than the test needs to see the PaymentIntent and kill the worker


def _intents_for(client: stripe.StripeClient, reference: str) -> list:
    """The PaymentIntents at the fake Stripe made for our `reference`."""
    intents = client.v1.payment_intents.list(params={"limit": 100}).data
    return [
        intent for intent in intents if "reference" in intent.metadata and intent.metadata["reference"] == reference
    ]


def _pay(url: str, token: str, key: str, answers: list) -> None:
    body = {
        "amount": 2500,
        "currency": "USD",
        "payment_method": {
            "method": "card",
            "number": "4242424242424242",
            "expiration_date": "12/34",
            "security_code": "123",
        },
    }
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Idempotency-Key": key}
    request = urllib.request.Request(  # noqa: S310 - the test's own server on loopback
        url + "/transactions", data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
            answers.append(response.status)
    except urllib.error.HTTPError as error:
        answers.append(error.code)
    except (ConnectionError, urllib.error.URLError, OSError):
        answers.append(0)  # the worker died with the connection


def _wait_for(condition, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.1)


def test_a_worker_killed_after_stripe_made_the_payment_intent_is_recovered_from_stripe(
    merchant_account, private_key_pem, api_key, settings
):
    with localstripe() as fake:
        at_stripe = stripe.StripeClient(SECRET, base_addresses={"api": fake.url})
        service = PaymentServiceFactory(
            merchant_account=merchant_account, fields=[{"key": "secret_key", "value": SECRET}]
        )
        payment_service_update(service=service, position=1)
        env = {
            "DATABASE_URL": database_url(connection.settings_dict),
            "WEB_CONCURRENCY": "1",
            "WEB_TIMEOUT_SECONDS": str(TIMEOUT_SECONDS),
            "IDEMPOTENCY_KEY_LEASE_SECONDS": str(2 * TIMEOUT_SECONDS + 10),
            "STRIPE_API_BASE": fake.url,
            "PAUSE_AFTER_STRIPE_AUTHORIZE_SECONDS": str(PAUSE_SECONDS),
            "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
            "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
        }
        token = mint_token(private_key_pem, scopes=["transactions.read", "transactions.write"])
        with gunicorn(env, app="tests.paused_wsgi") as server:
            answers: list[int] = []
            sender = threading.Thread(target=_pay, args=(server.url, token, "crash-1", answers))
            sender.start()
            _wait_for(lambda: Transaction.objects.exists(), "the processing row")
            txn = Transaction.objects.get()
            _wait_for(lambda: _intents_for(at_stripe, str(txn.pk)), "the PaymentIntent at Stripe")
            [worker] = server.worker_pids()
            os.kill(worker, signal.SIGKILL)
            sender.join(timeout=60)

        assert answers == [0]  # no answer: the worker died
        txn.refresh_from_db()
        # What the crash left: the processing row, naming the service being asked, and no answer recorded.
        assert (txn.status, txn.payment_service_id, txn.payment_service_transaction_id) == (
            "processing",
            service.pk,
            None,
        )

        override_processor(settings, "stripe", API_BASE=fake.url)
        recovery = transactions_recover_pending(now=timezone.now() + timedelta(hours=1))

        assert [recovered.pk for recovered in recovery.resolved] == [txn.pk]
        txn.refresh_from_db()
        [intent] = _intents_for(at_stripe, str(txn.pk))  # made once: nothing charged twice
        assert (intent.status, intent.amount, intent.currency) == ("requires_capture", 2500, "usd")
        assert (txn.status, txn.authorized_amount, txn.payment_service_transaction_id) == (
            "authorization_succeeded",
            2500,
            intent.id,
        )
        assert list(TransactionEvent.objects.filter(transaction=txn).values_list("name", flat=True)) == [
            "transaction_created",
            "authorization_succeeded",
        ]

        captured = transaction_capture(txn=txn, actor=SYSTEM)

        assert captured.transaction.status == "capture_succeeded"
        assert at_stripe.v1.payment_intents.retrieve(intent.id).status == "succeeded"
        assert len(at_stripe.v1.payment_intents.list(params={"limit": 100}).data) == 1
