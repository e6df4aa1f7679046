"""What a processor tells us happened to one of our payments at its end (an authorization it decided, a capture,
cancel or refund made in its dashboard, or one it accepted and then could not do): the transaction follows, with an
event and our own webhook. Registered on `paymentservices`' notifications seam from this app's `ready()`; called
inside the transaction that records the notification once.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from payments.connectors import ConnectorResult
from paymentservices.connectors import PaymentChange
from paymentservices.notifications import ProcessorEvent
from paymentservices.routing import connector_for
from paymentservices.services import CredentialsUnusable
from transactions.models import Refund, RefundStatus, Transaction, TransactionStatus
from transactions.notifications import refund_notify
from transactions.services.authorization import _record_authorization
from transactions.services.recovery import _card_amount
from transactions.services.refunds import card_refund_book
from transactions.services.state import SYSTEM, _event, _move, _return_gift_cards

logger = logging.getLogger(__name__)
S = TransactionStatus


def transaction_apply_processor_event(event: ProcessorEvent) -> None:
    """Bring the transaction the event is about up to what its processor holds. An event about a payment that is not
    ours, one our own request is still recording (pending statuses), or one already applied changes nothing, so a
    resent or late notification is harmless."""
    if event.authorization is not None:
        _apply_authorization(event, event.authorization)
        return
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
    elif event.change == PaymentChange.CAPTURE_FAILED and txn.status == S.CAPTURE_SUCCEEDED and not txn.refunded_amount:
        # The capture it had accepted did not happen: the payment is authorized (uncaptured) again.
        _move(
            txn,
            S.AUTHORIZATION_SUCCEEDED,
            name="capture_failed",
            actor=SYSTEM,
            amount=txn.captured_amount,
            details=noted,
            captured_amount=0,
            captured_at=None,
        )
    elif event.change == PaymentChange.VOIDED and txn.status == S.AUTHORIZATION_SUCCEEDED:
        _move(txn, S.AUTHORIZATION_VOIDED, name="void_succeeded", actor=SYSTEM, details=noted, voided_at=timezone.now())
        _return_gift_cards(txn, actor=SYSTEM, card_part_refused=False)
    elif event.change == PaymentChange.REFUNDED and txn.status == S.CAPTURE_SUCCEEDED and event.amount is not None:
        _refunded_at_processor(txn, event=event, noted=noted)
    elif event.change == PaymentChange.REFUND_FAILED:
        _refund_failed_at_processor(txn, event=event, noted=noted)


def _apply_authorization(event: ProcessorEvent, result: ConnectorResult) -> None:
    """The processor's decision on an authorization (Adyen's AUTHORISATION). A transaction still waiting for it at
    this service (its request died: recovery is waiting for this) takes it as the request would have; an approval for
    a payment that ended otherwise here (declined, failed over, canceled) is cancelled at the processor, so no money
    stays held for a payment we did not take."""
    txn = _transaction_for(event, any_service=True)
    if txn is None:
        return  # not one of ours: nothing to follow, nothing to release
    if txn.payment_service_id == event.payment_service.pk:
        _record_authorization(txn, result=result, card_amount=_card_amount(txn), actor=SYSTEM)
        return
    if result.approved and result.processor_reference:
        _event(txn, name="authorization_after_cancel", actor=SYSTEM, from_status=txn.status, outcome=result.outcome)
        try:
            connector = connector_for(event.payment_service)
        except CredentialsUnusable as exc:  # nothing can be sent through this service until its credentials are fixed
            logger.error("Payment service %s: %s; the payment stays held there", event.payment_service.pk, exc.message)
            return
        psp, reference = result.processor_reference, f"{txn.pk}:void"
        transaction.on_commit(lambda: connector.void(processor_reference=psp, reference=reference))


def _transaction_for(event: ProcessorEvent, *, any_service: bool = False) -> Transaction | None:
    """The service's transaction the event names, by the processor's id of the payment or by our reference; locked.
    `any_service`: by our reference, whichever of the account's services holds it now (after a failover)."""
    match = Q(pk__in=[])
    if event.payment_reference:
        match |= Q(payment_service_transaction_id=event.payment_reference, payment_service=event.payment_service)
    if event.reference and _is_uuid(event.reference):
        mine = Q(merchant_account_id=event.payment_service.merchant_account_id)
        match |= Q(pk=event.reference) & (mine if any_service else Q(payment_service=event.payment_service))
    return Transaction.objects.select_for_update().filter(match).order_by("created_at").first()


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _refunded_at_processor(txn: Transaction, *, event: ProcessorEvent, noted: dict[str, Any]) -> None:
    """Money the processor refunded that our own refunds (recorded or on their way) do not account for becomes a
    succeeded refund here. Stripe tells everything refunded so far; Adyen each refund, ours included (named by its
    own id or our reference)."""
    amount = event.amount or 0
    if event.amount_is_total:
        missing = min(amount, txn.captured_amount) - txn.refunded_amount
    elif _notified_refund(txn, event).exists():
        return
    else:
        missing = min(amount, txn.captured_amount - txn.refunded_amount)
    if missing <= 0:
        return
    card_refund_book(
        txn,
        amount=missing,
        actor=SYSTEM,
        event="refund_succeeded",
        details=noted,
        status=RefundStatus.SUCCEEDED,
        payment_service_refund_id=event.object_id or None,
    )


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
    _event(
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
