"""A void Stripe did not answer in time, and could not be asked about: the client is answered with the transaction as
it stands (`authorization_void_pending`, 200), a replay with the same Idempotency-Key answers the same, and sync or the
pending sweep later records what Stripe holds: voided, or (the void never reached Stripe) authorized again."""

from __future__ import annotations

from datetime import timedelta

import pytest
import stripe
from django.utils import timezone

from paymentservices.processors.stripe.tests.test_capture_unanswered import _authorized, _timed_out
from paymentservices.processors.stripe.tests.test_connector import KEY, _front
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction, TransactionEvent
from transactions.services.recovery import transaction_sync, transactions_recover_pending
from transactions.services.state import SYSTEM

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(api_client, merchant_account, stripe_api):
    PaymentServiceFactory(merchant_account=merchant_account, fields=[{"key": "secret_key", "value": KEY}], position=1)
    return api_client(scopes=["transactions.read", "transactions.write"])


def _void(api, txn_id: str, **headers):
    return api.post(f"/transactions/{txn_id}/void", format="json", HTTP_IDEMPOTENCY_KEY="void-1", **headers)


def test_a_void_whose_answer_was_lost_answers_void_pending_and_sync_settles_it(api, monkeypatch):
    """Stripe canceled the PaymentIntent; the answer was lost, and the list that would have told it timed out too."""
    txn_id = _authorized(api)
    cancel_at_stripe = stripe.PaymentIntentService.cancel

    def canceled_then_lost(self, *args, **kwargs):
        cancel_at_stripe(self, *args, **kwargs)
        _timed_out()

    monkeypatch.setattr(stripe.PaymentIntentService, "cancel", canceled_then_lost)
    monkeypatch.setattr(stripe.PaymentIntentService, "list", _timed_out)

    first = _void(api, txn_id)
    replay = _void(api, txn_id)

    assert (first.status_code, first.json()["status"]) == (200, "authorization_void_pending")
    assert first.json()["voided_at"] is None
    assert (replay.status_code, replay.headers["Idempotent-Replayed"]) == (200, "true")
    assert replay.json() == first.json()
    # The history says the void was asked and Stripe's word on it is awaited.
    assert list(TransactionEvent.objects.filter(transaction_id=txn_id).values_list("name", flat=True))[-2:] == [
        "void_requested",
        "void_unanswered",
    ]

    monkeypatch.undo()  # Stripe answers again
    synced = transaction_sync(txn=Transaction.objects.get(pk=txn_id), actor=SYSTEM)

    assert synced.status == "authorization_voided"
    assert synced.voided_at is not None


def test_a_void_that_never_reached_stripe_is_undone_by_the_pending_sweep(api, monkeypatch):
    """Stripe neither answered nor took the void: once no request can still be sending it, it did not happen."""
    txn_id = _authorized(api)
    monkeypatch.setattr(stripe.PaymentIntentService, "cancel", _timed_out)
    monkeypatch.setattr(stripe.PaymentIntentService, "list", _timed_out)

    first = _void(api, txn_id, HTTP_PREFER="resource=transaction-void")

    assert first.status_code == 200
    assert (first.json()["status"], first.json()["transaction"]["status"]) == ("pending", "authorization_void_pending")
    assert _void(api, txn_id, HTTP_PREFER="resource=transaction-void").json() == first.json()

    monkeypatch.undo()
    waiting = transaction_sync(txn=Transaction.objects.get(pk=txn_id), actor=SYSTEM)  # a request may still be sending
    assert waiting.status == "authorization_void_pending"
    recovery = transactions_recover_pending(now=timezone.now() + timedelta(hours=1))

    assert [txn.pk for txn in recovery.resolved] == [Transaction.objects.get(pk=txn_id).pk]
    assert Transaction.objects.get(pk=txn_id).status == "authorization_succeeded"
    assert api.post(f"/transactions/{txn_id}/void", format="json").json()["status"] == "authorization_voided"


def test_a_stripe_service_that_answers_no_void_at_all_is_not_a_500(api, settings):
    """A processor double that takes the connection and never answers (within STRIPE_TIMEOUT_SECONDS)."""
    txn_id = _authorized(api)
    with _front(None) as silent:
        override_processor(settings, "stripe", API_BASE=silent.url, TIMEOUT_SECONDS=1)
        answer = _void(api, txn_id)

    assert (answer.status_code, answer.json()["status"]) == (200, "authorization_void_pending")
