"""A refund Stripe did not answer in time, and could not be asked about: the client is answered 201 with the refund
`processing` (upstream's status while the processor decides), a replay with the same Idempotency-Key answers the
same, and sync or the pending sweep later records what Stripe holds. Stripe's word alone settles it: a refund Stripe
has no record of stays `processing`, counted as refunded (the safe side), for the operator."""

from __future__ import annotations

from datetime import timedelta

import pytest
import stripe
from django.utils import timezone

from payments.rest.models import IdempotencyRecord
from paymentservices.processors.stripe.tests.lost import answers_lost
from paymentservices.processors.stripe.tests.test_actions_unanswered import CARD
from paymentservices.processors.stripe.tests.test_connector import KEY
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Refund, Transaction, TransactionEvent
from transactions.services.recovery import transaction_sync, transactions_recover_pending
from transactions.services.state import SYSTEM
from transactions.tests.connectors import ProcessKilled

pytestmark = pytest.mark.django_db

# Where the library sends a refund, and where `lookup` asks what Stripe holds of the payment and its refunds.
REFUNDED = ("POST", "/v1/refunds")
LISTED = (("GET", "/v1/payment_intents"), ("GET", "/v1/refunds"))


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
    answers_lost(monkeypatch, REFUNDED, *LISTED)

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
    answers_lost(monkeypatch, REFUNDED, *LISTED, acted=False)

    first = _refund(api, txn_id)
    assert (first.status_code, first.json()["status"]) == (201, "processing")

    later = timezone.now() + timedelta(hours=1)
    assert transactions_recover_pending(now=later).failed == [Transaction.objects.get(pk=txn_id).pk]  # still silent
    monkeypatch.undo()
    recovery = transactions_recover_pending(now=later)

    assert [txn.pk for txn in recovery.resolved] == [Transaction.objects.get(pk=txn_id).pk]
    assert Refund.objects.get().status == "processing"
    assert Transaction.objects.get(pk=txn_id).refunded_amount == 1000


def _refunds_at_stripe(stripe_api, txn_id: str) -> list[int]:
    """The amounts of the refunds the double holds for the payment, read with the official library."""
    at_stripe = stripe.StripeClient(KEY, base_addresses={"api": stripe_api.url}, max_network_retries=0)
    intent = Transaction.objects.get(pk=txn_id).payment_service_transaction_id
    return [refund.amount for refund in at_stripe.v1.refunds.list(params={"payment_intent": intent}).data]


def _died_mid_refund(api, txn_id: str, monkeypatch, *, stripe_refunded: bool) -> None:
    """The refund's request dies with the refund recorded `processing`: after Stripe refunded, or before it heard."""
    refund_at_stripe = stripe.RefundService.create

    def killed(self, *args, **kwargs):
        if stripe_refunded:
            refund_at_stripe(self, *args, **kwargs)
        raise ProcessKilled("the process died at Stripe's refund")

    monkeypatch.setattr(stripe.RefundService, "create", killed)
    with pytest.raises(ProcessKilled):
        _refund(api, txn_id)
    monkeypatch.undo()
    assert Refund.objects.get().status == "processing"
    # The lease is over: the retry takes the key over and resumes the request.
    IdempotencyRecord.objects.filter(key="refund-1").update(locked_until=timezone.now() - timedelta(seconds=1))


def test_a_refund_retried_after_its_request_died_answers_the_first_refund(api, stripe_api, monkeypatch):
    txn_id = _captured(api)
    _died_mid_refund(api, txn_id, monkeypatch, stripe_refunded=True)

    retry = _refund(api, txn_id)

    refund = Refund.objects.get()  # the first attempt's row, never a second
    assert retry.status_code == 201, retry.content
    assert (retry.json()["id"], retry.json()["status"]) == (str(refund.pk), "succeeded")
    assert refund.payment_service_refund_id is not None
    assert _refunds_at_stripe(stripe_api, txn_id) == [1000]  # the buyer is paid once
    assert Transaction.objects.get(pk=txn_id).refunded_amount == 1000
    assert _refund(api, txn_id).json() == retry.json()  # and replayed from now on


def test_a_refund_retried_after_dying_before_stripe_heard_is_not_sent_again(api, stripe_api, monkeypatch):
    """Stripe has no record of it: the retry cannot tell a refund never sent from one a processor keeps no record of,
    so it is left `processing`, counted, for the operator, rather than risk paying twice."""
    txn_id = _captured(api)
    _died_mid_refund(api, txn_id, monkeypatch, stripe_refunded=False)

    retry = _refund(api, txn_id)

    assert retry.status_code == 201, retry.content
    assert (retry.json()["id"], retry.json()["status"]) == (str(Refund.objects.get().pk), "processing")
    assert _refunds_at_stripe(stripe_api, txn_id) == []
    assert Transaction.objects.get(pk=txn_id).refunded_amount == 1000


def test_a_refund_retried_while_stripe_cannot_be_asked_answers_it_processing(api, stripe_api, monkeypatch):
    txn_id = _captured(api)
    _died_mid_refund(api, txn_id, monkeypatch, stripe_refunded=True)
    answers_lost(monkeypatch, *LISTED)

    retry = _refund(api, txn_id)

    assert retry.status_code == 201, retry.content
    assert (retry.json()["id"], retry.json()["status"]) == (str(Refund.objects.get().pk), "processing")
    monkeypatch.undo()
    assert _refunds_at_stripe(stripe_api, txn_id) == [1000]
    transaction_sync(txn=Transaction.objects.get(pk=txn_id), actor=SYSTEM)
    assert Refund.objects.get().status == "succeeded"
