"""A capture Stripe did not answer in time, and could not be asked about: the client is answered with the transaction
as it stands (`capture_pending`, 200), a replay with the same Idempotency-Key answers the same, and sync or the
pending sweep later records what Stripe holds: captured, or (the capture never reached Stripe) authorized again."""

from __future__ import annotations

from datetime import timedelta

import pytest
import requests
import stripe
from django.utils import timezone

from paymentservices.processors.stripe.tests.test_connector import KEY, _front
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction, TransactionEvent
from transactions.services.recovery import transaction_sync, transactions_recover_pending
from transactions.services.state import SYSTEM

pytestmark = pytest.mark.django_db

CARD = {"method": "card", "number": "4242424242424242", "expiration_date": "12/34", "security_code": "123"}


@pytest.fixture
def api(api_client, merchant_account, stripe_api):
    PaymentServiceFactory(merchant_account=merchant_account, fields=[{"key": "secret_key", "value": KEY}], position=1)
    return api_client(scopes=["transactions.read", "transactions.write"])


def _authorized(api) -> str:
    created = api.post("/transactions", {"amount": 2500, "currency": "USD", "payment_method": CARD}, format="json")
    assert (created.status_code, created.json()["status"]) == (201, "authorization_succeeded"), created.content
    return created.json()["id"]


def _timed_out(*args, **kwargs):
    """What the library raises when Stripe took the request and its answer never came."""
    try:
        raise requests.exceptions.ReadTimeout("read timed out")
    except requests.exceptions.ReadTimeout as cause:
        raise stripe.APIConnectionError("no answer", should_retry=True) from cause


def _capture(api, txn_id: str, **headers):
    return api.post(
        f"/transactions/{txn_id}/capture", {"amount": 2000}, format="json", HTTP_IDEMPOTENCY_KEY="capture-1", **headers
    )


def test_a_capture_whose_answer_was_lost_answers_capture_pending_and_sync_settles_it(api, monkeypatch):
    """Stripe captured; the answer was lost, and the list that would have told it timed out too."""
    txn_id = _authorized(api)
    capture_at_stripe = stripe.PaymentIntentService.capture

    def captured_then_lost(self, *args, **kwargs):
        capture_at_stripe(self, *args, **kwargs)
        _timed_out()

    monkeypatch.setattr(stripe.PaymentIntentService, "capture", captured_then_lost)
    monkeypatch.setattr(stripe.PaymentIntentService, "list", _timed_out)

    first = _capture(api, txn_id)
    replay = _capture(api, txn_id)

    assert (first.status_code, first.json()["status"], first.json()["captured_amount"]) == (200, "capture_pending", 0)
    assert (replay.status_code, replay.headers["Idempotent-Replayed"]) == (200, "true")
    assert replay.json() == first.json()
    [capture] = api.get(f"/transactions/{txn_id}/captures").json()["items"]
    assert (capture["amount"], capture["status"]) == (2000, "pending")
    # The history says the capture was asked and Stripe's word on it is awaited.
    assert list(TransactionEvent.objects.filter(transaction_id=txn_id).values_list("name", flat=True))[-2:] == [
        "capture_requested",
        "capture_unanswered",
    ]

    monkeypatch.undo()  # Stripe answers again
    synced = transaction_sync(txn=Transaction.objects.get(pk=txn_id), actor=SYSTEM)

    assert (synced.status, synced.captured_amount) == ("capture_succeeded", 2000)
    [capture] = api.get(f"/transactions/{txn_id}/captures").json()["items"]
    assert capture["status"] == "succeeded"


def test_a_capture_that_never_reached_stripe_is_undone_by_the_pending_sweep(api, monkeypatch):
    """Stripe neither answered nor took the capture: once no request can still be sending it, it did not happen."""
    txn_id = _authorized(api)
    monkeypatch.setattr(stripe.PaymentIntentService, "capture", _timed_out)
    monkeypatch.setattr(stripe.PaymentIntentService, "list", _timed_out)

    first = _capture(api, txn_id, HTTP_PREFER="resource=transaction-capture")

    assert first.status_code == 200
    assert (first.json()["status"], first.json()["transaction"]["status"]) == ("pending", "capture_pending")
    assert _capture(api, txn_id, HTTP_PREFER="resource=transaction-capture").json() == first.json()

    monkeypatch.undo()
    waiting = transaction_sync(txn=Transaction.objects.get(pk=txn_id), actor=SYSTEM)  # a request may still be sending
    assert waiting.status == "capture_pending"
    recovery = transactions_recover_pending(now=timezone.now() + timedelta(hours=1))

    assert [txn.pk for txn in recovery.resolved] == [Transaction.objects.get(pk=txn_id).pk]
    txn = Transaction.objects.get(pk=txn_id)
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    [capture] = api.get(f"/transactions/{txn_id}/captures").json()["items"]
    assert capture["status"] == "failed"
    assert (
        api.post(f"/transactions/{txn_id}/capture", {"amount": 2500}, format="json").json()["status"]
        == "capture_succeeded"
    )


def test_a_stripe_service_that_answers_nothing_at_all_is_not_a_500(api, settings):
    """A processor double that takes the connection and never answers (within STRIPE_TIMEOUT_SECONDS)."""
    txn_id = _authorized(api)
    with _front(None) as silent:
        override_processor(settings, "stripe", API_BASE=silent.url, TIMEOUT_SECONDS=1)
        answer = _capture(api, txn_id)

    assert (answer.status_code, answer.json()["status"]) == (200, "capture_pending")
