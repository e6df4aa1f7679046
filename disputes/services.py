"""The one place a processor's word on a dispute is applied (docs/disputes.md).

Each processor's notifications module reads its dispute notifications into a `NotifiedDispute`; `paymentservices`
hands every verified notification to `dispute_apply_processor_event` (registered from this app's `ready()`), inside
the transaction that records the notification once. Facts may come twice or out of order: the transaction's row lock
serializes them, and a fact changes the dispute only when it is later (by the processor's clock) than the one that
set its state, and never reopens a closed dispute, so a `closed` before its `created` still ends closed.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from django.utils import timezone

from disputes.models import STATE_RANK, Dispute
from payments.choices import DisputeState
from payments.outbox import outbox_publish
from paymentservices.notifications import ProcessorEvent
from paymentservices.processors.seam import NotifiedDispute
from transactions.models import Transaction
from transactions.notifications import TRANSACTION_TARGET
from transactions.selectors import transaction_of_event
from transactions.services.state import SYSTEM, record_event

logger = logging.getLogger(__name__)

# Our own webhooks (docs/webhooks.md): upstream names no dispute events, so these are ours. A dispute first seen
# closed (its `created` still on its way) is named after how it closed.
OPENED_EVENT = "transaction.dispute-opened"
UPDATED_EVENT = "transaction.dispute-updated"
CLOSED_EVENTS = {
    DisputeState.WON: "transaction.dispute-won",
    DisputeState.LOST: "transaction.dispute-lost",
    DisputeState.ACCEPTED: "transaction.dispute-accepted",
}


def dispute_apply_processor_event(event: ProcessorEvent) -> None:
    """Apply the dispute a verified notification tells of to the service's transaction it names. A notification about
    a payment that is not one of this service's changes nothing (logged; the notification stays recorded and is
    answered, so the processor stops sending it)."""
    if event.dispute is None:
        return
    txn = transaction_of_event(event=event)
    if txn is None:
        logger.warning(
            "Dispute notification %s of payment service %s names no payment of the service (%s)",
            event.event_id,
            event.payment_service.pk,
            event.payment_reference,
        )
        return
    noted = {"notification": event.event_type, "notification_id": event.event_id}
    dispute_apply(txn=txn, payment_service_id=event.payment_service.pk, fact=event.dispute, noted=noted)


def dispute_apply(
    *, txn: Transaction, payment_service_id: Any, fact: NotifiedDispute, noted: dict[str, Any]
) -> Dispute | None:
    """Bring the transaction's dispute up to `fact` (the caller holds the transaction's row lock, which serializes the
    facts of its disputes): created at the fact's state, moved when the fact supersedes the state it holds, else
    unchanged. Each change is a transaction event and our own webhook. A fact this payment cannot be held to (in
    another currency) is refused: kept in the transaction's history and the log, and None is returned."""
    if fact.currency != txn.currency:
        _refuse(
            txn,
            fact=fact,
            noted=noted,
            why=f"the dispute {fact.id} is in {fact.currency} ({fact.amount} in minor units), the payment in "
            f"{txn.currency}: not counted against the payment",
        )
        return None
    dispute = (
        Dispute.objects.select_for_update()
        .filter(payment_service_id=payment_service_id, processor_dispute_id=fact.id)
        .first()
    )
    if dispute is None:
        if fact.state is None:
            # Nothing says where the dispute stands yet: it is opened for an answer, which is what a defence period
            # that ended means, and the facts still to come move it on.
            fact = replace(fact, state=DisputeState.NEEDS_RESPONSE)
        dispute = _create(txn, payment_service_id=payment_service_id, fact=fact)
        _record(txn, dispute, event=CLOSED_EVENTS.get(dispute.state, OPENED_EVENT), from_state=None, noted=noted)
        return dispute
    if fact.state is None:
        # A later fact that says no state brings the processor's latest amount, reason and due date, not a state: the
        # time of the fact that set the state stays, so a state told in between still moves the dispute.
        if fact.occurred_at > dispute.fact_at:
            _take_details(dispute, fact)
            dispute.save()
            record_event(
                txn, name="dispute_noted", actor=SYSTEM, from_status=txn.status, dispute=str(dispute.pk), **noted
            )
        return dispute
    if not _supersedes(fact, dispute):
        return dispute
    from_state = dispute.state
    _take_details(dispute, fact)
    dispute.state, dispute.fact_at = fact.state, fact.occurred_at
    dispute.closed_at = timezone.now() if fact.state in DisputeState.CLOSED else None
    dispute.save()
    if from_state != dispute.state:
        _record(txn, dispute, event=CLOSED_EVENTS.get(dispute.state, UPDATED_EVENT), from_state=from_state, noted=noted)
    return dispute


def _supersedes(fact: NotifiedDispute, dispute: Dispute) -> bool:
    """A later fact moves the dispute; a closed one is never reopened by an open state (a `created` that arrives
    after the `closed`). Facts of the same time order by how far along they are."""
    assert fact.state is not None  # noqa: S101  (the caller handles facts without a state)
    if dispute.state in DisputeState.CLOSED and fact.state not in DisputeState.CLOSED:
        return False
    return (fact.occurred_at, STATE_RANK[fact.state]) > (dispute.fact_at, STATE_RANK[dispute.state])


def _create(txn: Transaction, *, payment_service_id: Any, fact: NotifiedDispute) -> Dispute:
    assert fact.state is not None  # noqa: S101
    return Dispute.objects.create(
        merchant_account_id=txn.merchant_account_id,
        transaction=txn,
        payment_service_id=payment_service_id,
        processor_dispute_id=fact.id,
        state=fact.state,
        reason=fact.reason,
        amount=fact.amount,
        currency=fact.currency,
        due_at=fact.due_at,
        fact_at=fact.occurred_at,
        closed_at=timezone.now() if fact.state in DisputeState.CLOSED else None,
    )


def _take_details(dispute: Dispute, fact: NotifiedDispute) -> None:
    """What a later fact says of the dispute beside its state: the processor's latest amount, reason and due date.
    Called before the state moves: a dispute already closed keeps at least the amount it closed on (what the bank
    took back is not given back by a later word on the amount, only by a win)."""
    amount = max(fact.amount, dispute.amount) if dispute.state in DisputeState.CLOSED else fact.amount
    dispute.amount, dispute.currency = amount, fact.currency
    dispute.reason = fact.reason or dispute.reason
    dispute.due_at = fact.due_at or dispute.due_at


def _refuse(txn: Transaction, *, fact: NotifiedDispute, noted: dict[str, Any], why: str) -> None:
    """A processor's fact that is kept, not applied: a `dispute_refused` event in the transaction's history (its
    `refused` says why; the desk's timeline shows it) and a WARNING log line, for the operator to take up with the
    processor. Money is never counted on a guess."""
    logger.warning("Dispute fact about transaction %s refused: %s", txn.pk, why)
    record_event(
        txn,
        name="dispute_refused",
        actor=SYSTEM,
        from_status=txn.status,
        refused=why,
        dispute_id=fact.id,
        state=fact.state,
        disputed_amount=fact.amount,
        currency=fact.currency,
        **noted,
    )


def _record(txn: Transaction, dispute: Dispute, *, event: str, from_state: str | None, noted: dict[str, Any]) -> None:
    """The change in the transaction's history and our own webhook about the transaction (its `disputed` may have
    changed, so its `updated_at` moves too)."""
    txn.save(update_fields=["updated_at"])
    record_event(
        txn,
        name=f"dispute_{dispute.state}",
        actor=SYSTEM,
        from_status=txn.status,
        amount=dispute.amount,
        dispute=str(dispute.pk),
        from_state=from_state,
        **noted,
    )
    outbox_publish(
        merchant_account_id=txn.merchant_account_id, name=event, target_type=TRANSACTION_TARGET, target_id=str(txn.pk)
    )
