"""Test disputes on the sandbox: what a processor's test mode offers (Stripe's dispute test cards), from the desk.

A sandbox payment has no bank behind it, so nothing would ever dispute it: an operator opens a test dispute on one,
and later decides it (won or lost), each as if the sandbox had notified it. Both go through `dispute_apply`, the one
place a processor's word on a dispute is applied, so the test shows exactly what a real dispute does: the
transaction's history, `disputed`, the amounts held and taken back, our webhooks, the queue and the answer form.
A payment through any other processor is refused: its disputes come from its processor only.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from disputes.models import Dispute
from disputes.services import dispute_apply
from payments.choices import DisputeState
from payments.errors import Conflict, DomainError, NotFound
from paymentservices.processors import processor_get
from paymentservices.processors.seam import NotifiedDispute
from transactions.models import Transaction

TEST_PREFIX = "dp_test_"
# As long as a bank usually gives a merchant to answer.
ANSWER_WINDOW = timedelta(days=7)
REASONS = (
    "fraudulent",
    "product_not_received",
    "duplicate",
    "credit_not_processed",
    "subscription_canceled",
    "general",
)
DECISIONS = (DisputeState.WON, DisputeState.LOST)


def _on_the_sandbox(txn: Transaction) -> None:
    processor = processor_get(txn.payment_service.definition_id) if txn.payment_service else None
    if processor is None or not processor.sandbox:
        raise Conflict("Test disputes are opened on sandbox payments only: this payment's processor sends its own.")


@transaction.atomic
def sandbox_dispute_open(*, transaction_id: uuid.UUID, amount: int | None, reason: str, opened_by: str) -> Dispute:
    """A test dispute of `amount` (the captured amount when None) on a captured sandbox payment, needing a response
    within a week."""
    txn = Transaction.objects.select_for_update().filter(pk=transaction_id).first()
    if txn is None:
        raise NotFound("No transaction has this id.")
    _on_the_sandbox(txn)
    if txn.captured_amount <= 0:
        raise Conflict("Only captured money can be disputed: this payment has captured nothing.")
    amount = txn.captured_amount if amount is None else amount
    if not 0 < amount <= txn.captured_amount:
        raise DomainError(f"The amount must be between 1 and the captured {txn.captured_amount} (minor units).")
    if reason not in REASONS:
        raise DomainError(f"The reason must be one of {', '.join(REASONS)}.")
    now = timezone.now()
    fact = NotifiedDispute(
        id=f"{TEST_PREFIX}{uuid.uuid4().hex[:16]}",
        state=DisputeState.NEEDS_RESPONSE,
        reason=reason,
        amount=amount,
        currency=txn.currency,
        due_at=now + ANSWER_WINDOW,
        occurred_at=now,
    )
    dispute = dispute_apply(txn=txn, payment_service_id=txn.payment_service_id, fact=fact, noted=_noted(opened_by))
    assert dispute is not None  # noqa: S101  (the fact is in the payment's own currency)
    return dispute


@transaction.atomic
def sandbox_dispute_decide(*, dispute_id: uuid.UUID, state: str, decided_by: str) -> Dispute:
    """The bank's decision on an open test dispute: won (the money comes back) or lost (it stays with the bank)."""
    dispute = Dispute.objects.select_related("transaction__payment_service").filter(pk=dispute_id).first()
    if dispute is None or not dispute.processor_dispute_id.startswith(TEST_PREFIX):
        raise NotFound("No test dispute has this id.")
    if state not in DECISIONS:
        raise DomainError("A test dispute is decided won or lost.")
    txn = Transaction.objects.select_for_update().get(pk=dispute.transaction_id)
    _on_the_sandbox(txn)
    if not dispute.open:
        raise Conflict(f"The test dispute is already closed ({dispute.get_state_display().lower()}).")
    fact = NotifiedDispute(
        id=dispute.processor_dispute_id,
        state=state,
        reason=dispute.reason,
        amount=dispute.amount,
        currency=dispute.currency,
        due_at=dispute.due_at,
        occurred_at=max(timezone.now(), dispute.fact_at + timedelta(microseconds=1)),
    )
    decided = dispute_apply(txn=txn, payment_service_id=txn.payment_service_id, fact=fact, noted=_noted(decided_by))
    assert decided is not None  # noqa: S101
    return decided


def _noted(who: str) -> dict[str, str]:
    return {"notification": "sandbox_test_dispute", "by": who}
