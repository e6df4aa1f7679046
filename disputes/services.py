"""The one place a processor's word on a dispute is applied, and the one place a dispute is answered (docs/disputes.md).

Each processor's notifications module reads its dispute notifications into a `NotifiedDispute`; `paymentservices`
hands every verified notification to `dispute_apply_processor_event` (registered from this app's `ready()`), inside
the transaction that records the notification once. Facts may come twice or out of order: the transaction's row lock
serializes them, and a fact changes the dispute only when it is later (by the processor's clock) than the one that
set its state, and never reopens a closed dispute, so a `closed` before its `created` still ends closed.

`dispute_answer` accepts or defends a dispute at its processor (the seam's `DisputeAnswers`), from the API and the desk
alike. The answer is kept only when the processor took it; the dispute's state still moves only by the processor's
next notification.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import replace
from typing import Any

from django.db import transaction
from django.utils import timezone

from disputes.evidence import evidence_refusal
from disputes.models import STATE_RANK, Dispute, DisputeAnswer, DisputeEvidenceFile
from payments.choices import DisputeState
from payments.errors import Conflict, DomainError, ServiceUnavailable
from payments.outbox import outbox_publish
from paymentservices.notifications import Matched, ProcessorEvent
from paymentservices.processors import processor_get
from paymentservices.processors.seam import (
    AnswerOutcome,
    DisputeAnswers,
    DisputeUnanswered,
    Evidence,
    NotifiedDispute,
)
from paymentservices.services import CredentialsUnusable, payment_service_connector_credentials
from transactions.models import Transaction
from transactions.notifications import TRANSACTION_TARGET
from transactions.selectors import transaction_of_event
from transactions.services.state import SYSTEM, Actor, record_event

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


def dispute_apply_processor_event(event: ProcessorEvent) -> Matched:
    """Apply the dispute a verified notification tells of to the service's transaction it names. A notification about
    a payment that is not one of this service's changes nothing (logged; the notification stays recorded and is
    answered, so the processor stops sending it, and shown on the desk as unmatched)."""
    if event.dispute is None:
        return None
    txn = transaction_of_event(event=event)
    if txn is None:
        logger.warning(
            "Dispute notification %s of payment service %s names no payment of the service (%s)",
            event.event_id,
            event.payment_service.pk,
            event.payment_reference,
        )
        return False
    noted = {"notification": event.event_type, "notification_id": event.event_id}
    dispute_apply(txn=txn, payment_service_id=event.payment_service.pk, fact=event.dispute, noted=noted)
    return True


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


class AnswerRefused(Conflict):
    """The processor did not take the answer: its reason is the message. Nothing was recorded as sent."""


def dispute_answer(*, dispute_id: Any, action: str, evidence: Evidence | None, actor: Actor) -> DisputeAnswer:
    """Accept (`action="accept"`) or defend (`"defend"`, with `evidence`) the dispute at its processor, and keep what
    the processor took. Refused (a 4xx, nothing sent nor kept): a dispute closed, already answered or past its due
    date, a processor that answers its disputes only in its own dashboard, evidence it would not take (too long, too
    many or too large files, a type it does not take), and an answer the processor refused (its reason).

    The dispute's row is locked while the processor is asked, so two answers of one dispute never both reach it: the
    second waits, then finds the first. The dispute's state is left to the processor's next notification."""
    with transaction.atomic():
        dispute = (
            Dispute.objects.select_for_update().select_related("transaction", "payment_service").get(pk=dispute_id)
        )
        answers = _answerable(dispute)
        if action == DisputeAnswer.Action.DEFEND:
            assert evidence is not None  # noqa: S101  (the inputs make one for a defence)
            refusal = evidence_refusal(evidence, answers)
            if refusal is not None:
                raise DomainError(refusal.message, pointer=refusal.pointer)
        outcome = _ask(dispute, answers, action=action, evidence=evidence)
        answer = _keep(dispute, action=action, outcome=outcome, evidence=evidence, actor=actor)
        txn = dispute.transaction
        record_event(
            txn,
            name="dispute_answered",
            actor=actor,
            from_status=txn.status,
            dispute=str(dispute.pk),
            answer=action,
            outcome=outcome,
        )
        return answer


def _answerable(dispute: Dispute) -> DisputeAnswers:
    """The processor's way of answering the dispute, when the dispute may still be answered; else a refusal naming
    why."""
    if not dispute.open:
        raise Conflict(f"The dispute is closed ({dispute.state}): there is nothing left to answer.")
    if dispute.answers.exists():
        raise Conflict("The dispute was already answered: the processor takes one answer.")
    if dispute.due_at is not None and dispute.due_at <= timezone.now():
        raise Conflict(f"The answer was due by {dispute.due_at.isoformat()}: the processor no longer takes one.")
    processor = processor_get(dispute.payment_service.definition_id)
    if processor is None or processor.disputes is None:
        name = processor.display_name if processor else dispute.payment_service.definition_id
        raise Conflict(f"{name} disputes are answered in {name}'s dashboard.")
    return processor.disputes


def _ask(dispute: Dispute, answers: DisputeAnswers, *, action: str, evidence: Evidence | None) -> str:
    """The processor's word on the answer (accepted, under review); its refusal, or no word at all, raises."""
    try:
        credentials = payment_service_connector_credentials(service=dispute.payment_service)
    except CredentialsUnusable:
        raise ServiceUnavailable("The payment service's credentials cannot be used: nothing was sent.") from None
    reference = dispute.transaction.payment_service_transaction_id or ""
    try:
        if action == DisputeAnswer.Action.ACCEPT:
            said = answers.accept(
                credentials=credentials, dispute_id=dispute.processor_dispute_id, payment_reference=reference
            )
        else:
            assert evidence is not None  # noqa: S101
            said = answers.defend(
                credentials=credentials,
                dispute_id=dispute.processor_dispute_id,
                payment_reference=reference,
                evidence=evidence,
            )
    except DisputeUnanswered as error:
        logger.warning("Dispute %s: the processor gave no answer (%s)", dispute.pk, error)
        raise ServiceUnavailable(f"The processor gave no answer: {error}") from None
    if said.outcome == AnswerOutcome.REFUSED:
        logger.warning("Dispute %s: the processor refused the answer (%s)", dispute.pk, said.reason)
        raise AnswerRefused(f"The processor refused the answer: {said.reason or 'it gave no reason'}.")
    return said.outcome


def _keep(dispute: Dispute, *, action: str, outcome: str, evidence: Evidence | None, actor: Actor) -> DisputeAnswer:
    """The answer as the processor took it: the words and documents sent, and what it said."""
    answer = DisputeAnswer.objects.create(
        dispute=dispute,
        action=action,
        outcome=outcome,
        text=evidence.text if evidence else "",
        reason=evidence.reason if evidence else None,
        answered_by=f"{actor.type}:{actor.id}" if actor.id else actor.type,
    )
    for position, file in enumerate(evidence.files if evidence else ()):
        DisputeEvidenceFile.objects.create(
            answer=answer,
            position=position,
            name=file.name,
            content_type=file.content_type,
            kind=file.kind,
            size=len(file.content),
            sha256=hashlib.sha256(file.content).hexdigest(),
            content=file.content,
        )
    return answer
