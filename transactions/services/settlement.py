"""What a processor's settlement records say it paid for a transaction or took back for a refund.

The `settlements` app keeps the ledger (one entry per line of a processor's report) and calls these, inside the
transaction that ingests a report file, with the totals its entries give: the transaction's `settled_amount` is
never computed from our own amounts. The first settlement of a payment is an event in its history and our own
`transaction.settled` webhook; a later entry (a refund, a chargeback) changes the net with a history event only.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from payments.outbox import outbox_publish
from transactions.models import Refund, Transaction
from transactions.notifications import TRANSACTION_TARGET
from transactions.services.state import SYSTEM, record_event

SETTLED_EVENT = "transaction.settled"


@dataclass(frozen=True)
class SettledTotal:
    """The net a processor's entries add up to, in their currency, and when the first was posted."""

    amount: int
    currency: str
    posted_at: datetime


def _apply(row: Transaction | Refund, total: SettledTotal) -> bool:
    """Write the total on a locked transaction or refund; False when it already says so."""
    if row.settled and (row.settled_amount, row.settled_currency) == (total.amount, total.currency):
        return False
    row.settled_at = row.settled_at or total.posted_at
    row.settled_amount = total.amount
    row.settled_currency = total.currency
    row.save(update_fields=["settled_at", "settled_amount", "settled_currency", "updated_at"])
    return True


def transaction_settlement_record(*, txn_id: uuid.UUID, total: SettledTotal) -> Transaction:
    """Record the settled net of one transaction (its row locked); nothing is written when nothing changed."""
    txn = Transaction.objects.select_for_update().get(pk=txn_id)
    first = not txn.settled
    if not _apply(txn, total):
        return txn
    name = "settled" if first else "settlement_updated"
    record_event(txn, name=name, actor=SYSTEM, from_status=txn.status, amount=total.amount, currency=total.currency)
    if first:
        outbox_publish(
            merchant_account_id=txn.merchant_account_id,
            name=SETTLED_EVENT,
            target_type=TRANSACTION_TARGET,
            target_id=str(txn.pk),
        )
    return txn


def refund_settlement_record(*, refund_id: uuid.UUID, total: SettledTotal) -> Refund:
    """Record what the processor's entries took back for one refund (its row locked)."""
    refund = Refund.objects.select_for_update().get(pk=refund_id)
    _apply(refund, total)
    return refund
