"""What a processor tells us happened to one of our payments at its end (a capture, cancel or refund made in its
dashboard): the transaction follows, with an event and our own webhook. Registered on `paymentservices`'
notifications seam from this app's `ready()`; called inside the transaction that records the notification once.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Q
from django.utils import timezone

from paymentservices.connectors import PaymentChange
from paymentservices.notifications import ProcessorEvent
from transactions.models import Refund, RefundStatus, RefundTargetType, Transaction, TransactionStatus
from transactions.notifications import refund_notify
from transactions.services.state import SYSTEM, _event, _move, _return_gift_cards

S = TransactionStatus


def transaction_apply_processor_event(event: ProcessorEvent) -> None:
    """Bring the transaction the event is about up to what its processor holds. An event about a payment that is not
    ours, one our own request is still recording (pending statuses), or one already applied changes nothing, so a
    resent or late notification is harmless."""
    if event.change is None:
        return
    txn = _transaction_for(event)
    if txn is None:
        return
    noted = {"notification": event.event_type, "notification_id": event.event_id}
    if event.change == PaymentChange.CAPTURED and txn.status == S.AUTHORIZATION_SUCCEEDED:
        amount = min(event.amount or txn.authorized_amount, txn.authorized_amount)
        _move(
            txn,
            S.CAPTURE_SUCCEEDED,
            name="capture_succeeded",
            actor=SYSTEM,
            amount=amount,
            details=noted,
            captured_amount=amount,
            captured_at=timezone.now(),
        )
    elif event.change == PaymentChange.VOIDED and txn.status == S.AUTHORIZATION_SUCCEEDED:
        _move(txn, S.AUTHORIZATION_VOIDED, name="void_succeeded", actor=SYSTEM, details=noted, voided_at=timezone.now())
        _return_gift_cards(txn, actor=SYSTEM, card_part_refused=False)
    elif event.change == PaymentChange.REFUNDED and txn.status == S.CAPTURE_SUCCEEDED and event.amount is not None:
        _refunded_at_processor(txn, total=event.amount, noted=noted, refund_id=event.object_id)


def _transaction_for(event: ProcessorEvent) -> Transaction | None:
    """The service's transaction the event names, by the processor's id of the payment or by our reference; locked."""
    match = Q(pk__in=[])
    if event.payment_reference:
        match |= Q(payment_service_transaction_id=event.payment_reference)
    if event.reference and _is_uuid(event.reference):
        match |= Q(pk=event.reference)
    return (
        Transaction.objects.select_for_update()
        .filter(match, payment_service=event.payment_service)
        .order_by("created_at")
        .first()
    )


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _refunded_at_processor(txn: Transaction, *, total: int, noted: dict[str, Any], refund_id: str) -> None:
    """`total` is everything refunded at the processor so far; what our own refunds do not account for (those
    recorded or on their way) was refunded there, and becomes a succeeded refund here."""
    missing = min(total, txn.captured_amount) - txn.refunded_amount
    if missing <= 0:
        return
    txn.refunded_amount += missing
    txn.save(update_fields=["refunded_amount", "updated_at"])
    refund = Refund.objects.create(
        merchant_account_id=txn.merchant_account_id,
        transaction=txn,
        target_type=RefundTargetType.PAYMENT_METHOD,
        amount=missing,
        currency=txn.currency,
        status=RefundStatus.SUCCEEDED,
        payment_service_refund_id=refund_id or None,
    )
    _event(
        txn,
        name="refund_succeeded",
        actor=SYSTEM,
        from_status=txn.status,
        amount=missing,
        refund=str(refund.pk),
        **noted,
    )
    refund_notify(refund)
