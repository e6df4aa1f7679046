"""Capture, void and cancel: each claims its pending status, asks the processor, records its answer."""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from payments.connectors import (
    ConnectorResult,
    Outcome,
    OutcomeUnknown,
)
from payments.errors import DomainError
from transactions.models import (
    Capture,
    CaptureStatus,
    Transaction,
    TransactionStatus,
)
from transactions.services.state import (
    ActionResult,
    Actor,
    answer_fields,
    capture_book,
    capture_reference,
    connector_of,
    locked_for_update,
    move_to,
    processor_ready,
    record_event,
    release_on_commit,
    require_allowed,
    require_feature,
    return_gift_cards,
)

S = TransactionStatus
logger = logging.getLogger(__name__)


def _capture_amount(txn: Transaction, amount: int | None) -> int:
    """What a capture takes: `amount`, or all that is left of the authorization; never more than is left."""
    left = txn.authorized_amount - txn.captured_amount
    if amount is None:
        return left
    if amount > left:
        what = "the authorized amount" if not txn.captured_amount else "what is left to capture"
        raise DomainError(f"The capture amount is more than {what} ({left}).", pointer="/amount")
    return amount


def _open_for_captures(txn: Transaction) -> bool:
    """Captured, but its last capture said `final: false` and some of the authorization is left: it takes more."""
    if txn.status != S.CAPTURE_SUCCEEDED or txn.captured_amount >= txn.authorized_amount:
        return False
    last = txn.captures.filter(status=CaptureStatus.SUCCEEDED).order_by("-sequence").first()
    return last is not None and not last.final


@transaction.atomic
def _begin_capture(
    txn: Transaction, *, amount: int | None, final: bool, external_identifier: str | None, actor: Actor
) -> tuple[Transaction, Capture | None]:
    txn = locked_for_update(txn)
    if not _open_for_captures(txn):
        require_allowed("capture", txn)
    if not final:
        require_feature(txn, "multiple_captures", asked="several captures of one authorization", pointer="/final")
    amount = _capture_amount(txn, amount)
    # Gift cards alone authorize nothing at a processor: their capture is the transaction's only.
    capture = (
        capture_book(
            txn, amount=amount, status=CaptureStatus.PENDING, final=final, external_identifier=external_identifier
        )
        if amount
        else None
    )
    details = {"capture": str(capture.pk)} if capture is not None else {}
    move_to(txn, S.CAPTURE_PENDING, name="capture_requested", actor=actor, amount=amount, details=details)
    return txn, capture


def transaction_capture(
    *,
    txn: Transaction,
    actor: Actor,
    amount: int | None = None,
    final: bool = True,
    external_identifier: str | None = None,
) -> ActionResult:
    """Capture `amount` (default: all that is left) of the authorization, each capture a record, never more in total
    than was authorized. `final: false` (where the processor takes several captures) leaves the rest open for later
    captures; a final one releases it. The gift card debits are captured with the first."""
    processor_ready(txn)
    txn, capture = _begin_capture(txn, amount=amount, final=final, external_identifier=external_identifier, actor=actor)
    result = None
    if capture is not None:
        try:
            result = connector_of(txn).capture(
                processor_reference=txn.payment_service_transaction_id or "",
                amount=capture.amount,
                currency=txn.currency,
                reference=capture_reference(capture),
            )
        except OutcomeUnknown:
            return ActionResult(_capture_unanswered(txn, capture=capture, actor=actor), None, capture)
    txn = finish_capture(txn, capture=capture, result=result, actor=actor)
    if capture is not None:
        capture.refresh_from_db()  # the answer recorded on it
    return ActionResult(txn, result, capture)


@transaction.atomic
def _capture_unanswered(txn: Transaction, *, capture: Capture, actor: Actor) -> Transaction:
    """The processor gave no answer in time and cannot be asked now what it did: the capture may have happened. The
    transaction stays `capture_pending` with its capture `pending` (a 5xx would tell the client the request may not
    have happened); sync and the pending sweep record the processor's word on it (`transaction_sync`)."""
    logger.warning(
        "Capture %s of transaction %s: no answer from the processor; recovery settles it", capture.pk, txn.pk
    )
    txn = locked_for_update(txn)
    record_event(
        txn,
        name="capture_unanswered",
        actor=actor,
        from_status=txn.status,
        amount=capture.amount,
        capture=str(capture.pk),
    )
    return txn


def _record_capture_answer(capture: Capture, result: ConnectorResult | None) -> None:
    if result is None or result.approved:
        capture.status = CaptureStatus.SUCCEEDED
        capture.captured_at = timezone.now()
    else:
        capture.status = CaptureStatus.DECLINED if result.outcome is Outcome.DECLINED else CaptureStatus.FAILED
    if result is not None:
        capture.payment_service_capture_id = result.processor_reference
        for name, value in answer_fields(result).items():
            setattr(capture, name, value)
    capture.save()


@transaction.atomic
def finish_capture(
    txn: Transaction, *, capture: Capture | None, result: ConnectorResult | None, actor: Actor
) -> Transaction:
    """Record the processor's answer to `capture` (None: gift cards alone, nothing asked): a refused capture leaves
    the transaction as it was before it."""
    txn = locked_for_update(txn)
    if txn.status != S.CAPTURE_PENDING:
        return txn  # a sync recorded the processor's answer first
    amount = capture.amount if capture is not None else 0
    if capture is not None:
        _record_capture_answer(Capture.objects.select_for_update().get(pk=capture.pk), result)
    if result is None or result.approved:
        # The processor's answer is now the capture's (Stripe's `succeeded`), no longer the authorization's.
        answer = answer_fields(result) if result is not None else {}
        if result is not None and result.payment_reference:  # PayPal's capture: its refunds name it
            answer["payment_service_transaction_id"] = result.payment_reference
        move_to(
            txn,
            S.CAPTURE_SUCCEEDED,
            name="capture_succeeded",
            actor=actor,
            amount=amount,
            captured_amount=txn.captured_amount + amount,
            captured_at=timezone.now(),
            **answer,
        )
    else:
        before = S.CAPTURE_SUCCEEDED if txn.captured_amount else S.AUTHORIZATION_SUCCEEDED
        move_to(txn, before, name=f"capture_{result.outcome}", actor=actor, amount=amount)
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
        try:
            result = connector_of(txn).void(
                processor_reference=txn.payment_service_transaction_id or "", reference=f"{txn.pk}:void"
            )
        except OutcomeUnknown:
            return ActionResult(_void_unanswered(txn, actor=actor), None)
    return ActionResult(finish_void(txn, result=result, actor=actor), result)


@transaction.atomic
def _void_unanswered(txn: Transaction, *, actor: Actor) -> Transaction:
    """The processor gave no answer in time and cannot be asked now what it did: the void may have happened. The
    transaction stays `authorization_void_pending` (a 5xx would tell the client the request may not have happened);
    sync and the pending sweep record the processor's word on it (`transaction_sync`)."""
    logger.warning("Void of transaction %s: no answer from the processor; recovery settles it", txn.pk)
    txn = locked_for_update(txn)
    record_event(txn, name="void_unanswered", actor=actor, from_status=txn.status)
    return txn


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
