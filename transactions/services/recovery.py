"""Sync and recovery: what became of an operation whose request died, asked of the processor and recorded."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.utils import timezone

from payments.connectors.base import ConnectorResult, Outcome, OutcomeUnknown, ReleasesByReference, RepeatsWrites
from transactions.models import (
    PENDING_STATUSES,
    Capture,
    Transaction,
    TransactionStatus,
)
from transactions.selectors import (
    transaction_has_refund_pending,
    transactions_increment_pending,
    transactions_pending,
    transactions_refund_pending,
)
from transactions.services.actions import finish_capture, finish_void
from transactions.services.authorization import NEVER_RECEIVED, record_authorization, settle_gift_cards_only
from transactions.services.increments import increment_sync
from transactions.services.redirects import redirect_sync
from transactions.services.refunds import refunds_sync
from transactions.services.state import (
    SYSTEM,
    Actor,
    capture_pending,
    capture_reference,
    card_amount_of,
    connector_of,
)

logger = logging.getLogger("transactions.recovery")
S = TransactionStatus


# Statuses in which an operation is under way: the processor's answer has not been recorded yet.
PENDING: frozenset[str] = frozenset(PENDING_STATUSES)


def _abandoned(txn: Transaction, now: datetime) -> bool:
    """Pending for longer than any request may run: nothing is still working on it."""
    return txn.updated_at <= now - timedelta(seconds=settings.PENDING_TRANSACTION_RECOVERY_SECONDS)


def transaction_sync(
    *, txn: Transaction, actor: Actor, abandoned: bool | None = None, now: datetime | None = None
) -> Transaction:
    """Ask the processor what became of the transaction's pending operation and record its answer, as the
    request that asked would have; a transaction that is not pending is returned unchanged.

    An operation the processor has no record of did not happen: that is recorded only once no request can still
    be sending it (`abandoned`: by default, pending longer than PENDING_TRANSACTION_RECOVERY_SECONDS). An
    authorization that did not happen fails and returns the gift card money; a capture or void that did not
    happen leaves the transaction authorized.
    """
    txn = Transaction.objects.get(pk=txn.pk)
    if transaction_has_refund_pending(txn):
        refunds_sync(txn=txn, actor=actor)
        txn = Transaction.objects.get(pk=txn.pk)
    if txn.status not in PENDING and txn.increment_pending_since is None:
        return txn
    if abandoned is None:
        abandoned = _abandoned(txn, now or timezone.now())
    if txn.increment_pending_since is not None:
        return increment_sync(txn=txn, actor=actor, abandoned=abandoned)
    if txn.status == S.PROCESSING:
        if txn.pays_with_method and not txn.pays_by_card:  # approved at the processor: its order is read
            return redirect_sync(txn, actor=actor, abandoned=abandoned)
        if not txn.pays_by_card:
            # Gift cards alone: their debits are the authorization and nothing was asked of a processor.
            return settle_gift_cards_only(txn, actor=actor) if abandoned else txn
        # The service recorded for the attempt under way: each attempt is recorded before its processor is asked.
        connector = connector_of(txn)
        result = connector.lookup(reference=str(txn.pk))
        if result is None and not abandoned:
            return txn
        if result is None and isinstance(connector, ReleasesByReference):
            # Its processor cannot say (Adyen: its notification would have): whatever it may hold is cancelled there.
            connector.release(str(txn.pk))
        return record_authorization(txn, result=result or NEVER_RECEIVED, card_amount=card_amount_of(txn), actor=actor)
    operation = "capture" if txn.status == S.CAPTURE_PENDING else "void"
    capture = capture_pending(txn) if operation == "capture" else None
    reference = capture_reference(capture) if capture is not None else f"{txn.pk}:void"
    asked = capture is not None if operation == "capture" else bool(txn.authorized_amount)
    connector = connector_of(txn)
    found = connector.lookup(reference=reference) if asked else None
    if found is None and asked and isinstance(connector, RepeatsWrites) and connector.repeats_writes:
        found = _sent_again(txn, capture=capture, reference=reference)
        if found is None:
            return txn  # the processor gave no answer again: the next run asks again
    if found is None and asked and not abandoned:
        return txn
    # No card part: nothing was asked, the operation stands (None). A card part never received: it failed.
    result = found or (NEVER_RECEIVED if asked else None)
    if operation == "capture":
        return finish_capture(txn, capture=capture, result=result, actor=actor)
    return finish_void(txn, result=result, actor=actor)


def _sent_again(txn: Transaction, *, capture: Capture | None, reference: str) -> ConnectorResult | None:
    """A capture (or, with no `capture`, a void) whose answer was lost, sent again with its reference to a processor
    that answers a repeat with what it did the first time (PayPal): its answer, or None when it gave none again."""
    connector = connector_of(txn)
    authorization = txn.payment_service_transaction_id or ""
    try:
        if capture is None:
            result = connector.void(processor_reference=authorization, reference=reference)
        else:
            result = connector.capture(
                processor_reference=authorization, amount=capture.amount, currency=txn.currency, reference=reference
            )
    except OutcomeUnknown:
        return None
    return None if result.outcome is Outcome.FAILED else result


def transaction_sync_or_as_is(
    *, txn: Transaction, actor: Actor, abandoned: bool | None = None, now: datetime | None = None
) -> Transaction:
    """`transaction_sync` for a request that must answer now (`/sync`, a retry resuming a request whose process
    died): a processor that cannot be asked at this moment (`OutcomeUnknown`) leaves the transaction as it stands,
    nothing changed, for the next sweep to settle. A 5xx would tell the client its request may not have happened."""
    try:
        return transaction_sync(txn=txn, actor=actor, abandoned=abandoned, now=now)
    except OutcomeUnknown:
        logger.warning("Transaction %s: its processor cannot be asked now; the pending sweep settles it", txn.pk)
        return Transaction.objects.get(pk=txn.pk)


@dataclass(frozen=True)
class Recovery:
    """What one recovery run did: the transactions it resolved, and those whose processor could not be asked."""

    resolved: list[Transaction]
    failed: list[UUID]


def transactions_recover_pending(*, now: datetime | None = None, batch_size: int = 100) -> Recovery:
    """Sync up to `batch_size` transactions left pending for longer than PENDING_TRANSACTION_RECOVERY_SECONDS
    (their request died), oldest first: each ends in the status the processor's records give, and gift card
    money held for a card part that never happened goes back. Each is synced on its own: a processor that
    cannot be asked about one (it raises) leaves it pending for the next run and the others resolved."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.PENDING_TRANSACTION_RECOVERY_SECONDS)
    resolved, failed = [], []
    waiting = list(transactions_pending(updated_before=cutoff)[:batch_size])
    # Refunds and increments do not change the status: transactions holding one the processor has not answered are
    # found apart.
    waiting += [txn for txn in transactions_refund_pending(updated_before=cutoff)[:batch_size] if txn not in waiting]
    waiting += [txn for txn in transactions_increment_pending(started_before=cutoff)[:batch_size] if txn not in waiting]
    for txn in waiting:
        try:
            resolved.append(transaction_sync(txn=txn, actor=SYSTEM, abandoned=True))
        except Exception:
            logger.exception("Recovery could not sync transaction %s; the next run tries again", txn.pk)
            failed.append(txn.pk)
    return Recovery(resolved, failed)
