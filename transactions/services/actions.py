"""Capture, void and cancel: each claims its pending status, asks the processor, records its answer."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from payments.connectors import (
    ConnectorResult,
)
from payments.errors import DomainError
from transactions.models import (
    Transaction,
    TransactionStatus,
)
from transactions.services.state import (
    ActionResult,
    Actor,
    answer_fields,
    connector_of,
    locked_for_update,
    move_to,
    processor_ready,
    release_on_commit,
    require_allowed,
    return_gift_cards,
)

S = TransactionStatus


@transaction.atomic
def _begin_capture(txn: Transaction, *, amount: int | None, actor: Actor) -> tuple[Transaction, int]:
    txn = locked_for_update(txn)
    require_allowed("capture", txn)
    if amount is None:
        amount = txn.authorized_amount
    elif amount > txn.authorized_amount:
        raise DomainError(
            f"The capture amount is more than the authorized amount ({txn.authorized_amount}).", pointer="/amount"
        )
    move_to(txn, S.CAPTURE_PENDING, name="capture_requested", actor=actor, amount=amount)
    return txn, amount


def transaction_capture(*, txn: Transaction, actor: Actor, amount: int | None = None) -> ActionResult:
    """Capture `amount` (default: all) of the authorization, once; the gift card debits are captured with it."""
    processor_ready(txn)
    txn, amount = _begin_capture(txn, amount=amount, actor=actor)
    result = None
    if txn.authorized_amount:
        result = connector_of(txn).capture(
            processor_reference=txn.payment_service_transaction_id or "",
            amount=amount,
            currency=txn.currency,
            reference=f"{txn.pk}:capture",
        )
    return ActionResult(finish_capture(txn, result=result, amount=amount, actor=actor), result)


@transaction.atomic
def finish_capture(txn: Transaction, *, result: ConnectorResult | None, amount: int, actor: Actor) -> Transaction:
    txn = locked_for_update(txn)
    if txn.status != S.CAPTURE_PENDING:
        return txn  # a sync recorded the processor's answer first
    if result is None or result.approved:
        # The processor's answer is now the capture's (Stripe's `succeeded`), no longer the authorization's.
        answer = answer_fields(result) if result is not None else {}
        move_to(
            txn,
            S.CAPTURE_SUCCEEDED,
            name="capture_succeeded",
            actor=actor,
            amount=amount,
            captured_amount=amount,
            captured_at=timezone.now(),
            **answer,
        )
    else:
        move_to(txn, S.AUTHORIZATION_SUCCEEDED, name=f"capture_{result.outcome}", actor=actor, amount=amount)
    return txn


@transaction.atomic
def _begin_void(txn: Transaction, *, actor: Actor) -> Transaction:
    txn = locked_for_update(txn)
    require_allowed("void", txn)
    move_to(txn, S.AUTHORIZATION_VOID_PENDING, name="void_requested", actor=actor)
    return txn


def transaction_void(*, txn: Transaction, actor: Actor) -> ActionResult:
    """Release the authorization and give every gift card its money back."""
    processor_ready(txn)
    txn = _begin_void(txn, actor=actor)
    result = None
    if txn.authorized_amount:
        result = connector_of(txn).void(
            processor_reference=txn.payment_service_transaction_id or "", reference=f"{txn.pk}:void"
        )
    return ActionResult(finish_void(txn, result=result, actor=actor), result)


@transaction.atomic
def finish_void(txn: Transaction, *, result: ConnectorResult | None, actor: Actor) -> Transaction:
    txn = locked_for_update(txn)
    if txn.status != S.AUTHORIZATION_VOID_PENDING:
        return txn  # a sync recorded the processor's answer first
    if result is None or result.approved:
        move_to(txn, S.AUTHORIZATION_VOIDED, name="void_succeeded", actor=actor, voided_at=timezone.now())
        return_gift_cards(txn, actor=actor, card_part_refused=False)
    else:
        move_to(txn, S.AUTHORIZATION_SUCCEEDED, name=f"void_{result.outcome}", actor=actor)
    return txn


@transaction.atomic
def transaction_cancel(*, txn: Transaction, actor: Actor) -> Transaction:
    """Stop a transaction still waiting for its authorization and give the gift cards their money back."""
    txn = locked_for_update(txn)
    require_allowed("cancel", txn)
    now = timezone.now()
    if txn.status == S.BUYER_APPROVAL_PENDING and txn.payment_service_transaction_id:
        # The processor waits for the buyer (its own 3-D Secure): its payment must not be completed after this.
        release_on_commit(txn, txn.payment_service_transaction_id)
    move_to(txn, S.AUTHORIZATION_VOIDED, name="cancel_succeeded", actor=actor, canceled_at=now, voided_at=now)
    return_gift_cards(txn, actor=actor, card_part_refused=False)
    return txn
