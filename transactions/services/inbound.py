"""What a processor tells us happened to one of our payments at its end (an authorization it decided, a capture,
cancel or refund made in its dashboard, or one it accepted and then could not do): the transaction follows, with an
event and our own webhook. Registered on `paymentservices`' notifications seam from this app's `ready()`; called
inside the transaction that records the notification once.
"""

from __future__ import annotations

import functools
import logging
import uuid
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from payments.connectors import ConnectorResult, OutcomeUnknown, ReadsCapturedAmount
from paymentservices.models import PaymentService
from paymentservices.notifications import Matched, ProcessorEvent
from paymentservices.processors.seam import NotifiedRefund, PaymentChange
from paymentservices.routing import connector_for
from paymentservices.services import CredentialsUnusable
from transactions.models import Capture, CaptureStatus, Refund, RefundStatus, Transaction, TransactionStatus
from transactions.notifications import refund_notify, transaction_notify
from transactions.selectors import transaction_of_event
from transactions.services.authorization import record_authorization
from transactions.services.refunds import card_refund_book
from transactions.services.state import (
    SYSTEM,
    capture_book,
    capture_reference,
    card_amount_of,
    move_to,
    record_event,
    return_gift_cards,
)

logger = logging.getLogger(__name__)
S = TransactionStatus


def transaction_apply_processor_event(event: ProcessorEvent) -> Matched:
    """Bring the transaction the event is about up to what its processor holds. An event about a payment that is not
    ours, one our own request is still recording (pending statuses), or one already applied changes nothing, so a
    resent or late notification is harmless. Answers whether the event named one of the service's payments
    (`paymentservices.notifications`)."""
    if event.authorization is not None:
        return _apply_authorization(event, event.authorization)
    if event.change is None:
        return None
    txn = transaction_of_event(event=event)
    if txn is None:
        # Kept (the notification is recorded and answered) and told to the operator: a payment made outside this
        # server, or one this server never recorded.
        logger.warning(
            "Notification %s (%s) of payment service %s names no payment of the service (%s)",
            event.event_id,
            event.event_type,
            event.payment_service.pk,
            event.payment_reference,
        )
        return False
    _apply_change(txn, event=event)
    return True


def _apply_change(txn: Transaction, *, event: ProcessorEvent) -> None:
    noted = {"notification": event.event_type, "notification_id": event.event_id}
    if event.change == PaymentChange.CAPTURED and txn.status == S.AUTHORIZATION_SUCCEEDED:
        _captured_at_processor(txn, event=event, noted=noted)
    elif event.change == PaymentChange.CAPTURE_FAILED and txn.status in (S.CAPTURE_SUCCEEDED, S.CAPTURE_PENDING):
        _capture_failed_at_processor(txn, event=event, noted=noted)
    elif event.change == PaymentChange.CAPTURE_FAILED and txn.status == S.AUTHORIZATION_SUCCEEDED:
        _capture_failed_first(txn, event=event, noted=noted)
    elif event.change == PaymentChange.VOIDED and txn.status == S.AUTHORIZATION_SUCCEEDED:
        move_to(
            txn, S.AUTHORIZATION_VOIDED, name="void_succeeded", actor=SYSTEM, details=noted, voided_at=timezone.now()
        )
        return_gift_cards(txn, actor=SYSTEM, card_part_refused=False)
    elif event.change == PaymentChange.REFUNDED and txn.status == S.CAPTURE_SUCCEEDED:
        _refunded_at_processor(txn, event=event, noted=noted)
    elif event.change == PaymentChange.REFUND_FAILED:
        _refund_failed_at_processor(txn, event=event, noted=noted)


def _apply_authorization(event: ProcessorEvent, result: ConnectorResult) -> Matched:
    """The processor's decision on an authorization (Adyen's AUTHORISATION). A transaction still waiting for it at
    this service (its request died: recovery is waiting for this) takes it as the request would have; an approval for
    a payment that ended otherwise here (declined, failed over, canceled) is cancelled at the processor, so no money
    stays held for a payment we did not take."""
    txn = transaction_of_event(event=event, any_service=True)
    if txn is None:
        return False  # not one of ours: nothing to follow, nothing to release; shown to the operator
    if txn.payment_service_id == event.payment_service.pk:
        if txn.authorized_at is None:
            record_authorization(txn, result=result, card_amount=card_amount_of(txn), actor=SYSTEM)
        # else authorized here already (a payment is authorized once): this is that authorization told late, after
        # a capture or void that renamed or ended it, and it changes nothing.
        return True
    if result.approved and result.processor_reference:
        record_event(
            txn, name="authorization_after_cancel", actor=SYSTEM, from_status=txn.status, outcome=result.outcome
        )
        try:
            connector = connector_for(event.payment_service)
        except CredentialsUnusable as exc:  # nothing can be sent through this service until its credentials are fixed
            logger.error("Payment service %s: %s; the payment stays held there", event.payment_service.pk, exc.message)
            return True
        psp, reference = result.processor_reference, f"{txn.pk}:void"
        transaction.on_commit(lambda: connector.void(processor_reference=psp, reference=reference))
    return True


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _captured_at_processor(txn: Transaction, *, event: ProcessorEvent, noted: dict[str, Any]) -> None:
    """A capture made at the processor is recorded at the amount the processor says it captured (at most what was
    authorized). A notification that says no amount is only noted: the processor is asked what it captured once the
    notification is recorded (`transaction_capture_asked`). A missing amount, a zero and the authorized amount are
    different facts, and none stands in for another."""
    if event.amount is None and event.payment_reference:
        _unapplied(txn, noted=noted, why="it says no amount captured: the processor is asked what it captured")
        ask = functools.partial(
            transaction_capture_asked,
            txn_id=txn.pk,
            payment_service=event.payment_service,
            processor_reference=event.payment_reference,
            noted=noted,
        )
        # Robust: a failure there is logged, and the note above stays in the history for the operator.
        transaction.on_commit(ask, robust=True)
        return
    capture_id = event.object_id if event.object_id != event.payment_reference else None
    if capture_id and txn.captures.filter(payment_service_capture_id=capture_id, status=CaptureStatus.FAILED).exists():
        # Told to have failed already (its failure came first): a capture's earlier word does not undo its later one.
        _unapplied(txn, noted=noted, why=f"the processor's capture {capture_id} is recorded as failed")
        return
    _book_processor_capture(
        txn, amount=event.amount, noted=noted, capture_id=capture_id, renames_payment=event.renames_payment
    )


def transaction_capture_asked(
    *, txn_id: uuid.UUID, payment_service: PaymentService, processor_reference: str, noted: dict[str, Any]
) -> None:
    """Ask the processor what it captured of a payment whose notification did not say (outside any database
    transaction, like every connector call), and record it as a notification saying it would have been. What the
    processor cannot be asked about is kept in the transaction's history for the operator: no amount is guessed."""
    try:
        connector = connector_for(payment_service)
        if not isinstance(connector, ReadsCapturedAmount):
            raise OutcomeUnknown("The processor cannot be asked what it captured.")
        amount: int | None = connector.captured_amount(processor_reference=processor_reference)
    except (OutcomeUnknown, CredentialsUnusable) as exc:
        logger.warning(
            "Could not ask payment service %s what it captured of %s: %s", payment_service.pk, processor_reference, exc
        )
        amount = None
    with transaction.atomic():
        txn = Transaction.objects.select_for_update().get(pk=txn_id)
        if amount is None:
            _unapplied(txn, noted=noted, why="it says no amount captured, and the processor could not be asked")
        elif not amount:
            _unapplied(txn, noted=noted, why="it says no amount captured, and the processor says it captured nothing")
        elif txn.status == S.AUTHORIZATION_SUCCEEDED:  # else captured or voided since: nothing left to follow
            _book_processor_capture(txn, amount=amount, noted={**noted, "amount_from": "processor"}, capture_id=None)


def _book_processor_capture(
    txn: Transaction,
    *,
    amount: int | None,
    noted: dict[str, Any],
    capture_id: str | None,
    renames_payment: str | None = None,
) -> None:
    """Record a capture made at the processor at `amount` (at most what was authorized); no amount, or 0, records
    nothing and is kept in the history for the operator. `capture_id`: the processor's id of the capture, where it
    names one apart from the payment (its failure names it too); `renames_payment`: the id that names the payment
    from this capture on (PayPal's capture, as its answer to our own capture does)."""
    if not amount:
        _unapplied(txn, noted=noted, why="it says no amount captured" if amount is None else "it captured 0")
        return
    amount = min(amount, txn.authorized_amount)
    renamed = {"payment_service_transaction_id": renames_payment} if renames_payment else {}
    move_to(
        txn,
        S.CAPTURE_SUCCEEDED,
        name="capture_succeeded",
        actor=SYSTEM,
        amount=amount,
        details=noted,
        captured_amount=amount,
        captured_at=timezone.now(),
        **renamed,
    )
    capture_book(
        txn,
        amount=amount,
        status=CaptureStatus.SUCCEEDED,
        captured_at=txn.captured_at,
        payment_service_capture_id=capture_id,
    )


def _capture_failed_at_processor(txn: Transaction, *, event: ProcessorEvent, noted: dict[str, Any]) -> None:
    """A capture the processor had accepted (answered here as succeeded) did not happen: that capture fails, and only
    that one. The transaction's captured amount is what the captures that stand add up to; with none standing it is
    authorized (uncaptured) again. A notification that names no capture of the transaction, or names one our own
    request is still recording, or whose failure would leave less captured than was refunded, changes nothing and is
    kept for the operator."""
    capture = _notified_capture(txn, event)
    if capture is None or capture.status == CaptureStatus.PENDING:
        _unapplied(txn, noted=noted, why="it names no capture of this transaction that was recorded as captured")
        return
    if capture.status != CaptureStatus.SUCCEEDED:
        return  # already failed (Adyen may tell one failure twice: CAPTURE unsuccessful, then CAPTURE_FAILED)
    standing = txn.captured_amount - capture.amount
    if standing < txn.refunded_amount:
        _unapplied(txn, noted=noted, why="the captures that stand would not cover what was refunded")
        return
    capture.status, capture.captured_at = CaptureStatus.FAILED, None
    capture.save(update_fields=["status", "captured_at", "updated_at"])
    details = {**noted, "capture": str(capture.pk)}
    if not standing and txn.status == S.CAPTURE_SUCCEEDED:
        move_to(
            txn,
            S.AUTHORIZATION_SUCCEEDED,
            name="capture_failed",
            actor=SYSTEM,
            amount=capture.amount,
            details=details,
            captured_amount=0,
            captured_at=None,
        )
        return
    # Earlier captures stand (or a later one is being asked): the status stays, the captured amount follows.
    txn.captured_amount = standing
    txn.save(update_fields=["captured_amount", "updated_at"])
    record_event(txn, name="capture_failed", actor=SYSTEM, from_status=txn.status, amount=capture.amount, **details)
    transaction_notify(txn, event_name="capture_failed")


def _capture_failed_first(txn: Transaction, *, event: ProcessorEvent, noted: dict[str, Any]) -> None:
    """A capture made at the processor failed before its capture was told here (PayPal's DENIED arriving before its
    PENDING): kept as a failed capture under the processor's id of it, so its earlier word, arriving late, does not
    capture what did not happen. Nothing else changes: the payment stays authorized."""
    capture_id = event.object_id if event.object_id != event.payment_reference else None
    if not capture_id or txn.captures.filter(payment_service_capture_id=capture_id).exists():
        return
    capture_book(
        txn,
        amount=min(event.amount or 0, txn.authorized_amount),
        status=CaptureStatus.FAILED,
        payment_service_capture_id=capture_id,
    )
    record_event(txn, name="capture_failed", actor=SYSTEM, from_status=txn.status, amount=event.amount, **noted)


def _notified_capture(txn: Transaction, event: ProcessorEvent) -> Capture | None:
    """The transaction's capture the notification names, locked: by our reference of it (what the connector sent as
    the capture's reference), or by the processor's id of a capture made at the processor."""
    captures = Capture.objects.select_for_update().filter(transaction=txn).order_by("sequence")
    for capture in captures:
        ours = event.reference is not None and event.reference == capture_reference(capture)
        theirs = bool(event.object_id) and event.object_id == capture.payment_service_capture_id
        if ours or (theirs and event.object_id != event.payment_reference):
            return capture
    return None


def _unapplied(txn: Transaction, *, noted: dict[str, Any], why: str) -> None:
    """A notification about the transaction that changes nothing: in its history (and the log) for the operator."""
    logger.warning("Notification %s about transaction %s changed nothing: %s", noted["notification"], txn.pk, why)
    record_event(txn, name="processor_notification", actor=SYSTEM, from_status=txn.status, unapplied=why, **noted)


def _refunded_at_processor(txn: Transaction, *, event: ProcessorEvent, noted: dict[str, Any]) -> None:
    """Money the processor refunded that our own refunds (recorded or on their way) do not account for becomes a
    succeeded refund here, never more than is left to refund. A refund the processor lists (Stripe's charge, when it
    carries its refunds) is booked on its own, at its amount, once. Otherwise Stripe tells everything refunded so far,
    which may count what a partial capture released (`_refunded_in_total`), and Adyen each refund, ours included
    (named by its own id or our reference)."""
    if event.refunds is not None:
        for refund in _refunds_to_book(txn, event):
            _book_refund(txn, amount=refund.amount, noted=noted, refund_id=refund.id)
        return
    if event.amount is None:
        _unapplied(txn, noted=noted, why="it says no amount refunded")
        return
    if event.amount_is_total:
        _book_refund(txn, amount=_refunded_in_total(txn, event) - txn.refunded_amount, noted=noted, refund_id=None)
    elif not event.amount:
        _unapplied(txn, noted=noted, why="it refunded 0")
    elif not _notified_refund(txn, event).exists():
        _book_refund(txn, amount=event.amount, noted=noted, refund_id=event.object_id or None)


def _book_refund(txn: Transaction, *, amount: int, noted: dict[str, Any], refund_id: str | None) -> None:
    amount = min(amount, txn.captured_amount - txn.refunded_amount)
    if amount <= 0:
        return
    card_refund_book(
        txn,
        amount=amount,
        actor=SYSTEM,
        event="refund_succeeded",
        details=noted,
        status=RefundStatus.SUCCEEDED,
        payment_service_refund_id=refund_id,
    )


def _released(txn: Transaction, event: ProcessorEvent) -> int:
    """What a partial capture released of the authorization: as the notification tells it, else by our records."""
    if event.released is not None:
        return event.released
    return max(txn.authorized_amount - txn.captured_amount, 0)


def _refunded_in_total(txn: Transaction, event: ProcessorEvent) -> int:
    """What the processor refunded, by a total that may count the uncaptured remainder a partial capture released (as
    Stripe's `amount_refunded` did for captures made before its API version 2025-03-31, and no longer does). A total
    below that remainder cannot count it: it is all refunds. Otherwise it is read net of the remainder, the least the
    processor may have refunded, so no refund is ever booked that did not happen; the refund objects (`refunds`)
    decide where the notification lists them."""
    total, released = event.amount or 0, _released(txn, event)
    return total if total < released else total - released


def _refunds_to_book(txn: Transaction, event: ProcessorEvent) -> list[NotifiedRefund]:
    """The refunds the processor lists that stand and that the transaction does not have yet (ours by the processor's
    id of them or by our reference in their metadata; others booked from an earlier notification by that id),
    without what a partial capture released: a refund made by the processor itself, or (Stripe before its API version
    2025-03-31) the earliest refund of exactly the released remainder that no one here asked for."""
    listed = [refund for refund in event.refunds or () if refund.stands and not refund.by_processor]
    known = _known_refunds(txn, listed)
    unknown = [refund for refund in listed if refund.id not in known]
    released = _released(txn, event)
    remainder = [refund for refund in unknown if released and refund.amount == released]
    if remainder:
        unknown.remove(min(remainder, key=lambda refund: refund.created))
    return sorted(unknown, key=lambda refund: refund.created)


def _known_refunds(txn: Transaction, refunds: list[NotifiedRefund]) -> set[str]:
    """The processor's ids of the refunds in `refunds` that the transaction already has."""
    references = [refund.reference for refund in refunds if refund.reference and _is_uuid(refund.reference)]
    rows = Refund.objects.filter(
        Q(payment_service_refund_id__in=[refund.id for refund in refunds]) | Q(pk__in=references),
        transaction=txn,
        redemption__isnull=True,
    ).values_list("pk", "payment_service_refund_id")
    ours = {str(pk) for pk, _ in rows}
    booked = {refund_id for _, refund_id in rows if refund_id}
    return {refund.id for refund in refunds if refund.id in booked or refund.reference in ours}


def _refund_failed_at_processor(txn: Transaction, *, event: ProcessorEvent, noted: dict[str, Any]) -> None:
    """A refund the processor had accepted (answered here as succeeded) did not happen: it fails, and its amount may
    be refunded again."""
    refund = _notified_refund(txn, event).select_for_update().filter(status=RefundStatus.SUCCEEDED).first()
    if refund is None:
        return
    refund.status = RefundStatus.FAILED
    refund.save(update_fields=["status", "updated_at"])
    txn.refunded_amount -= refund.amount
    txn.save(update_fields=["refunded_amount", "updated_at"])
    record_event(
        txn,
        name="refund_failed",
        actor=SYSTEM,
        from_status=txn.status,
        amount=refund.amount,
        refund=str(refund.pk),
        **noted,
    )
    refund_notify(refund)


def _notified_refund(txn: Transaction, event: ProcessorEvent) -> QuerySet[Refund]:
    """The transaction's card refund the notification names: by the processor's id of it, or by our reference."""
    match = Q(payment_service_refund_id=event.object_id) if event.object_id else Q(pk__in=[])
    if event.reference and _is_uuid(event.reference):
        match |= Q(pk=event.reference)
    return Refund.objects.filter(match, transaction=txn, redemption__isnull=True)
