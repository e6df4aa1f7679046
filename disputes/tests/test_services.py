"""`dispute_apply`: the processor's facts about a dispute, applied once and in the processor's order whatever order
they arrive in; each change a transaction event and our own webhook; the transaction's `disputed` and what the bank
took back follow; a refund of money the bank took back is refused by name."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.db import transaction

from disputes.models import Dispute
from disputes.services import dispute_apply
from disputes.tests.factories import fact
from payments.choices import DisputeState
from payments.errors import Conflict, DomainError
from payments.outbox.models import OutboxEvent
from transactions.disputes import transaction_disputed, transaction_taken_back
from transactions.models import Transaction, TransactionEvent
from transactions.services.refunds import HeldByDispute, TakenBackByDispute, refund_all, refund_create
from transactions.services.state import SYSTEM
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db
S = DisputeState


@pytest.fixture
def txn(merchant_account) -> Transaction:
    from webhooks.models import WebhookSubscription  # a listener, so the outbox keeps events

    WebhookSubscription.objects.create(merchant_account=merchant_account, url="https://hooks.example/a")
    return TransactionFactory(merchant_account=merchant_account, captured=True, amount=1299)


def _apply(txn: Transaction, *facts) -> Dispute:
    for one in facts:
        with transaction.atomic():
            locked = Transaction.objects.select_for_update().get(pk=txn.pk)
            dispute = dispute_apply(txn=locked, payment_service_id=txn.payment_service_id, fact=one, noted={})
    return dispute


def _events(txn: Transaction) -> list[str]:
    return list(TransactionEvent.objects.filter(transaction=txn).order_by("id").values_list("name", flat=True))


def _webhooks() -> list[str]:
    return list(OutboxEvent.objects.order_by("created_at").values_list("name", flat=True))


def test_a_dispute_opens_moves_and_is_won(txn):
    _apply(txn, fact(S.NEEDS_RESPONSE), fact(S.UNDER_REVIEW, minutes=5), fact(S.WON, minutes=10))

    dispute = Dispute.objects.get()
    assert (dispute.state, dispute.amount, dispute.currency, dispute.reason) == ("won", 1299, "USD", "fraudulent")
    assert dispute.closed_at is not None
    assert _events(txn) == ["dispute_needs_response", "dispute_under_review", "dispute_won"]
    assert _webhooks() == [
        "transaction.dispute-opened",
        "transaction.dispute-updated",
        "transaction.dispute-won",
    ]
    txn = Transaction.objects.get(pk=txn.pk)
    assert (transaction_disputed(txn), transaction_taken_back(txn)) == (False, 0)


@pytest.mark.parametrize(
    "order",
    list(itertools.permutations(range(3))),
    ids=lambda order: "-".join(map(str, order)),
)
def test_facts_in_any_order_end_at_the_last_one_once(txn, order):
    facts = [fact(S.INQUIRY), fact(S.NEEDS_RESPONSE, minutes=1), fact(S.LOST, minutes=2)]

    _apply(txn, *[facts[i] for i in order], *facts)  # then every one again: duplicates

    dispute = Dispute.objects.get()
    assert dispute.state == "lost"
    assert _events(txn)[-1] == "dispute_lost"
    assert _webhooks().count("transaction.dispute-lost") == 1
    txn = Transaction.objects.get(pk=txn.pk)
    assert (transaction_disputed(txn), transaction_taken_back(txn)) == (True, 1299)


def test_a_closed_dispute_first_seen_is_named_after_how_it_closed_and_a_late_created_changes_nothing(txn):
    _apply(txn, fact(S.WON, minutes=10), fact(S.NEEDS_RESPONSE, minutes=0), fact(S.NEEDS_RESPONSE, minutes=30))

    assert Dispute.objects.get().state == "won"
    assert _events(txn) == ["dispute_won"]
    assert _webhooks() == ["transaction.dispute-won"]


def test_a_later_decision_overrides_an_earlier_one(txn):
    """Adyen: a chargeback reversed (won), then a second chargeback (lost); in either order of arrival."""
    _apply(txn, fact(S.LOST, minutes=20), fact(S.WON, minutes=10))

    assert Dispute.objects.get().state == "lost"


def test_a_fact_without_a_state_notes_the_dispute_and_opens_an_unknown_one(txn):
    _apply(txn, fact(None, minutes=0))
    assert Dispute.objects.get().state == "needs_response"

    _apply(txn, fact(S.UNDER_REVIEW, minutes=1), fact(None, minutes=2, reason=None))

    assert Dispute.objects.get().state == "under_review"
    assert _events(txn) == ["dispute_needs_response", "dispute_under_review", "dispute_noted"]


def test_two_disputes_of_one_payment_are_kept_apart(txn):
    _apply(txn, fact(S.LOST, dispute_id="dp_1", amount=500), fact(S.NEEDS_RESPONSE, dispute_id="dp_2", amount=200))

    assert sorted(Dispute.objects.values_list("processor_dispute_id", "state")) == [
        ("dp_1", "lost"),
        ("dp_2", "needs_response"),
    ]
    assert transaction_taken_back(Transaction.objects.get(pk=txn.pk)) == 500


def test_an_open_dispute_shows_disputed_and_takes_nothing_back(txn):
    _apply(txn, fact(S.INQUIRY))

    txn = Transaction.objects.get(pk=txn.pk)
    assert (transaction_disputed(txn), transaction_taken_back(txn)) == (True, 0)


def test_an_accepted_dispute_takes_the_money_back(txn):
    _apply(txn, fact(S.NEEDS_RESPONSE), fact(S.ACCEPTED, minutes=1))

    assert transaction_taken_back(Transaction.objects.get(pk=txn.pk)) == 1299


def test_a_refund_of_money_the_bank_took_back_is_refused_by_name(txn):
    _apply(txn, fact(S.LOST))

    with pytest.raises(TakenBackByDispute, match="disputes the bank decided for the buyer took back 1299"):
        refund_create(txn=txn, actor=SYSTEM, amount=None)
    with pytest.raises(Conflict):
        refund_create(txn=txn, actor=SYSTEM, amount=1)

    assert Transaction.objects.get(pk=txn.pk).refunded_amount == 0


def test_a_refund_is_held_to_what_the_bank_left(txn):
    _apply(txn, fact(S.LOST, amount=1000))

    with pytest.raises(DomainError, match=r"left to refund on the payment method \(299\)"):
        refund_create(txn=txn, actor=SYSTEM, amount=300)
    refund = refund_create(txn=txn, actor=SYSTEM, amount=299)

    assert (refund.amount, Transaction.objects.get(pk=txn.pk).refunded_amount) == (299, 299)


def test_refunds_all_give_back_only_what_the_bank_left(txn):
    _apply(txn, fact(S.LOST, amount=1000))

    refunds = refund_all(txn=txn, actor=SYSTEM)

    assert [refund.amount for refund in refunds] == [299]
    with pytest.raises(TakenBackByDispute):
        refund_all(txn=Transaction.objects.get(pk=txn.pk), actor=SYSTEM)


# --- an open dispute holds its amount ----------------------------------------------------------------------------


@pytest.mark.parametrize("state", DisputeState.OPEN)
def test_a_refund_of_money_an_open_dispute_holds_is_refused_naming_the_dispute(txn, state):
    _apply(txn, fact(state, amount=1299))

    for amount in (None, 1, 1299):
        with pytest.raises(HeldByDispute, match=r"Dispute dp_1 is open and holds 1299 of this payment") as refused:
            refund_create(txn=Transaction.objects.get(pk=txn.pk), actor=SYSTEM, amount=amount)
        assert refused.value.status == 409
    with pytest.raises(HeldByDispute, match="nothing else is left to refund"):
        refund_all(txn=Transaction.objects.get(pk=txn.pk), actor=SYSTEM)

    assert Transaction.objects.get(pk=txn.pk).refunded_amount == 0


def test_what_an_open_dispute_does_not_hold_may_be_refunded_by_amount(txn):
    _apply(txn, fact(S.NEEDS_RESPONSE, amount=1000))

    with pytest.raises(HeldByDispute, match="refund at most 299, with an amount"):
        refund_create(txn=txn, actor=SYSTEM, amount=300)
    with pytest.raises(HeldByDispute, match="refund at most 299, with an amount"):
        refund_create(txn=txn, actor=SYSTEM, amount=None)  # everything left would take what the dispute holds
    with pytest.raises(HeldByDispute):
        refund_all(txn=txn, actor=SYSTEM)
    refund = refund_create(txn=txn, actor=SYSTEM, amount=299)

    assert (refund.amount, Transaction.objects.get(pk=txn.pk).refunded_amount) == (299, 299)


def test_a_dispute_won_frees_what_it_held_and_one_lost_takes_it(txn):
    _apply(txn, fact(S.NEEDS_RESPONSE, dispute_id="dp_won", amount=500))
    _apply(txn, fact(S.NEEDS_RESPONSE, dispute_id="dp_lost", amount=300))
    _apply(txn, fact(S.WON, dispute_id="dp_won", amount=500, minutes=5))
    _apply(txn, fact(S.LOST, dispute_id="dp_lost", amount=300, minutes=5))

    refunds = refund_all(txn=Transaction.objects.get(pk=txn.pk), actor=SYSTEM)

    assert [refund.amount for refund in refunds] == [999]


def test_a_fact_without_a_state_moves_a_dispute_only_when_it_is_later(txn):
    _apply(txn, fact(S.NEEDS_RESPONSE, minutes=10, amount=1000, reason="10.4"))

    _apply(txn, fact(None, minutes=5, amount=250, reason="older", due_at=None))
    dispute = Dispute.objects.get()
    assert (dispute.state, dispute.amount, dispute.reason, dispute.fact_at) == (
        "needs_response",
        1000,
        "10.4",
        fact().occurred_at + timedelta(minutes=10),
    )

    _apply(txn, fact(None, minutes=15, amount=900, reason="later"))
    dispute = Dispute.objects.get()
    assert (dispute.state, dispute.amount, dispute.reason) == ("needs_response", 900, "later")
    assert dispute.fact_at == fact().occurred_at + timedelta(minutes=10)  # it set no state: a later state still moves
    _apply(txn, fact(S.UNDER_REVIEW, minutes=12, amount=900))
    assert Dispute.objects.get().state == "under_review"
    assert _events(txn) == ["dispute_needs_response", "dispute_noted", "dispute_under_review"]  # the older: nothing


@pytest.mark.parametrize("state", [None, S.LOST, S.ACCEPTED])
def test_a_closed_disputes_amount_never_shrinks(txn, state):
    _apply(txn, fact(S.LOST, amount=1000))

    _apply(txn, fact(state, minutes=30, amount=250))

    assert (Dispute.objects.get().amount, transaction_taken_back(Transaction.objects.get(pk=txn.pk))) == (1000, 1000)


# --- a dispute in another currency, and more than was captured -----------------------------------------------------


def test_a_dispute_in_another_currency_is_refused_and_kept_in_the_history(txn, caplog):
    refused = _apply(txn, fact(S.LOST, amount=100, currency="JPY"), fact(S.NEEDS_RESPONSE, minutes=-5, currency="JPY"))

    assert refused is None
    assert Dispute.objects.count() == 0
    assert _events(txn) == ["dispute_refused", "dispute_refused"]
    event = TransactionEvent.objects.filter(transaction=txn).first()
    assert event.details["dispute_id"] == "dp_1"
    assert event.details["refused"] == (
        "the dispute dp_1 is in JPY (100 in minor units), the payment in USD: not counted against the payment"
    )
    assert "dispute dp_1 is in JPY" in caplog.text
    assert _webhooks() == []
    txn = Transaction.objects.get(pk=txn.pk)
    assert (transaction_disputed(txn), transaction_taken_back(txn)) == (False, 0)


def test_a_later_fact_in_another_currency_leaves_the_dispute_as_it_was(txn):
    _apply(txn, fact(S.NEEDS_RESPONSE, amount=1000), fact(S.LOST, minutes=5, amount=100, currency="JPY"))

    dispute = Dispute.objects.get()
    assert (dispute.state, dispute.amount, dispute.currency) == ("needs_response", 1000, "USD")
    assert _events(txn) == ["dispute_needs_response", "dispute_refused"]


def test_what_disputes_take_back_is_never_more_than_was_captured(txn):
    _apply(txn, fact(S.LOST, dispute_id="dp_1", amount=1000), fact(S.LOST, dispute_id="dp_2", amount=5000))

    assert transaction_taken_back(Transaction.objects.get(pk=txn.pk)) == 1299


def test_a_dispute_row_in_another_currency_is_not_counted_as_the_payments(txn):
    from disputes.tests.factories import DisputeFactory

    DisputeFactory(transaction=txn, state=S.LOST, amount=100, currency="JPY")
    DisputeFactory(transaction=txn, state=S.NEEDS_RESPONSE, amount=100, currency="JPY")

    txn = Transaction.objects.get(pk=txn.pk)
    assert (transaction_taken_back(txn), refund_create(txn=txn, actor=SYSTEM, amount=1299).amount) == (0, 1299)
