"""A refund Stripe did not answer in time, and could not be asked about: the client is answered 201 with the refund
`processing` (upstream's status while the processor decides), a replay with the same Idempotency-Key answers the
same, and sync or the pending sweep later records what Stripe holds. Stripe's word alone settles it: a refund Stripe
has no record of stays `processing`, counted as refunded (the safe side), for the operator."""

from __future__ import annotations

from datetime import timedelta

import pytest
import stripe
from django.utils import timezone

from paymentservices.processors.stripe.tests.test_capture_unanswered import CARD, _timed_out
from paymentservices.processors.stripe.tests.test_connector import KEY
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Refund, Transaction, TransactionEvent
from transactions.services.recovery import transaction_sync, transactions_recover_pending
from transactions.services.state import SYSTEM

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(api_client, merchant_account, stripe_api):
    PaymentServiceFactory(merchant_account=merchant_account, fields=[{"key": "secret_key", "value": KEY}], position=1)
    return api_client(scopes=["transactions.read", "transactions.write"])


def _captured(api) -> str:
    body = {"amount": 2500, "currency": "USD", "payment_method": CARD, "intent": "capture"}
    created = api.post("/transactions", body, format="json")
    assert (created.status_code, created.json()["status"]) == (201, "capture_succeeded"), created.content
    return created.json()["id"]


def _refund(api, txn_id: str):
    return api.post(f"/transactions/{txn_id}/refunds", {"amount": 1000}, format="json", HTTP_IDEMPOTENCY_KEY="refund-1")


def test_a_refund_whose_answer_was_lost_answers_processing_and_sync_settles_it(api, monkeypatch):
    """Stripe refunded; the answer was lost, and the list that would have told it timed out too."""
    txn_id = _captured(api)
    refund_at_stripe = stripe.RefundService.create

    def refunded_then_lost(self, *args, **kwargs):
        refund_at_stripe(self, *args, **kwargs)
        _timed_out()

    monkeypatch.setattr(stripe.RefundService, "create", refunded_then_lost)
    monkeypatch.setattr(stripe.PaymentIntentService, "list", _timed_out)
    monkeypatch.setattr(stripe.RefundService, "list", _timed_out)

    first = _refund(api, txn_id)
    replay = _refund(api, txn_id)

    assert (first.status_code, first.json()["status"], first.json()["amount"]) == (201, "processing", 1000)
    assert (replay.status_code, replay.headers["Idempotent-Replayed"]) == (201, "true")
    assert replay.json() == first.json()
    assert Transaction.objects.get(pk=txn_id).refunded_amount == 1000  # counted while Stripe's word is awaited
    assert list(TransactionEvent.objects.filter(transaction_id=txn_id).values_list("name", flat=True))[-2:] == [
        "refund_requested",
        "refund_unanswered",
    ]

    monkeypatch.undo()  # Stripe answers again
    transaction_sync(txn=Transaction.objects.get(pk=txn_id), actor=SYSTEM)

    refund = Refund.objects.get()
    assert (refund.status, refund.payment_service_refund_id is not None) == ("succeeded", True)
    assert Transaction.objects.get(pk=txn_id).refunded_amount == 1000


def test_a_refund_stripe_has_no_record_of_stays_processing_for_the_operator(api, monkeypatch):
    """Stripe neither answered nor took the refund: the sweep asks, finds nothing, and keeps the refund counted."""
    txn_id = _captured(api)
    monkeypatch.setattr(stripe.RefundService, "create", _timed_out)
    monkeypatch.setattr(stripe.PaymentIntentService, "list", _timed_out)
    monkeypatch.setattr(stripe.RefundService, "list", _timed_out)

    first = _refund(api, txn_id)
    assert (first.status_code, first.json()["status"]) == (201, "processing")

    later = timezone.now() + timedelta(hours=1)
    assert transactions_recover_pending(now=later).failed == [Transaction.objects.get(pk=txn_id).pk]  # still silent
    monkeypatch.undo()
    recovery = transactions_recover_pending(now=later)

    assert [txn.pk for txn in recovery.resolved] == [Transaction.objects.get(pk=txn_id).pk]
    assert Refund.objects.get().status == "processing"
    assert Transaction.objects.get(pk=txn_id).refunded_amount == 1000
