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
    _answer,
    _connector,
    _locked,
    _move,
    _processor_ready,
    _release_on_commit,
    _require,
    _return_gift_cards,
)

S = TransactionStatus


@transaction.atomic
def _begin_capture(txn: Transaction, *, amount: int | None, actor: Actor) -> tuple[Transaction, int]:
    txn = _locked(txn)
    _require("capture", txn)
    if amount is None:
        amount = txn.authorized_amount
    elif amount > txn.authorized_amount:
        raise DomainError(
            f"The capture amount is more than the authorized amount ({txn.authorized_amount}).", pointer="/amount"
        )
    _move(txn, S.CAPTURE_PENDING, name="capture_requested", actor=actor, amount=amount)
    return txn, amount


def transaction_capture(*, txn: Transaction, actor: Actor, amount: int | None = None) -> ActionResult:
    """Capture `amount` (default: all) of the authorization, once; the gift card debits are captured with it."""
    _processor_ready(txn)
    txn, amount = _begin_capture(txn, amount=amount, actor=actor)
    result = None
    if txn.authorized_amount:
        result = _connector(txn).capture(
            processor_reference=txn.payment_service_transaction_id or "",
            amount=amount,
            currency=txn.currency,
            reference=f"{txn.pk}:capture",
        )
    return ActionResult(_finish_capture(txn, result=result, amount=amount, actor=actor), result)


@transaction.atomic
def _finish_capture(txn: Transaction, *, result: ConnectorResult | None, amount: int, actor: Actor) -> Transaction:
    txn = _locked(txn)
    if txn.status != S.CAPTURE_PENDING:
        return txn  # a sync recorded the processor's answer first
    if result is None or result.approved:
        # The processor's answer is now the capture's (Stripe's `succeeded`), no longer the authorization's.
        answer = _answer(result) if result is not None else {}
        _move(
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
        _move(txn, S.AUTHORIZATION_SUCCEEDED, name=f"capture_{result.outcome}", actor=actor, amount=amount)
    return txn


@transaction.atomic
def _begin_void(txn: Transaction, *, actor: Actor) -> Transaction:
    txn = _locked(txn)
    _require("void", txn)
    _move(txn, S.AUTHORIZATION_VOID_PENDING, name="void_requested", actor=actor)
    return txn


def transaction_void(*, txn: Transaction, actor: Actor) -> ActionResult:
    """Release the authorization and give every gift card its money back."""
    _processor_ready(txn)
    txn = _begin_void(txn, actor=actor)
    result = None
    if txn.authorized_amount:
        result = _connector(txn).void(
            processor_reference=txn.payment_service_transaction_id or "", reference=f"{txn.pk}:void"
        )
    return ActionResult(_finish_void(txn, result=result, actor=actor), result)


@transaction.atomic
def _finish_void(txn: Transaction, *, result: ConnectorResult | None, actor: Actor) -> Transaction:
    txn = _locked(txn)
    if txn.status != S.AUTHORIZATION_VOID_PENDING:
        return txn  # a sync recorded the processor's answer first
    if result is None or result.approved:
        _move(txn, S.AUTHORIZATION_VOIDED, name="void_succeeded", actor=actor, voided_at=timezone.now())
        _return_gift_cards(txn, actor=actor, card_part_refused=False)
    else:
        _move(txn, S.AUTHORIZATION_SUCCEEDED, name=f"void_{result.outcome}", actor=actor)
    return txn


@transaction.atomic
def transaction_cancel(*, txn: Transaction, actor: Actor) -> Transaction:
    """Stop a transaction still waiting for its authorization and give the gift cards their money back."""
    txn = _locked(txn)
    _require("cancel", txn)
    now = timezone.now()
    if txn.status == S.BUYER_APPROVAL_PENDING and txn.payment_service_transaction_id:
        # The processor waits for the buyer (its own 3-D Secure): its payment must not be completed after this.
        _release_on_commit(txn, txn.payment_service_transaction_id)
    _move(txn, S.AUTHORIZATION_VOIDED, name="cancel_succeeded", actor=actor, canceled_at=now, voided_at=now)
    _return_gift_cards(txn, actor=actor, card_part_refused=False)
    return txn
