"""What a transaction's disputes say about it: disputed or not, and how much the bank took back.

The `disputes` app (above this one) records each dispute with a foreign key to its transaction named `disputes`; this
module reads them back through that relation only (`transactions.related`), so nothing here imports the app
(docs/disputes.md). Lists prefetch the relation, so a page reads them in one query.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Q

from payments.choices import DisputeState
from transactions.models import Transaction
from transactions.related import DISPUTES, disputes_of

# `disputed` (upstream's field): a dispute is open, or the bank kept the money.
DISPUTED_STATES = DisputeState.OPEN + DisputeState.TAKEN_BACK


def transaction_disputed(txn: Transaction) -> bool:
    """A dispute of the transaction is open, or was lost or accepted."""
    return any(dispute.state in DISPUTED_STATES for dispute in disputes_of(txn))


def _counted(txn: Transaction, states: tuple[str, ...]) -> list[Any]:
    """The transaction's disputes in `states` that are in the payment's currency: a fact in another currency is
    refused when it arrives (docs/disputes.md), so one never counts as an amount of this payment's."""
    return [dispute for dispute in disputes_of(txn) if dispute.state in states and dispute.currency == txn.currency]


def transaction_taken_back(txn: Transaction) -> int:
    """What disputes the merchant lost or accepted took back of the payment, in minor units of its currency: never
    more than was captured (the bank cannot take back what it never paid)."""
    taken_back: int = sum(dispute.amount for dispute in _counted(txn, DisputeState.TAKEN_BACK))
    return min(taken_back, txn.captured_amount)


def transaction_open_disputes(txn: Transaction) -> list[Any]:
    """The transaction's open disputes: each holds its amount of the payment until the bank decides it (the
    processor withdrew it, or may, and a refund now would pay the buyer twice if the dispute is lost)."""
    return _counted(txn, DisputeState.OPEN)


def transaction_held(txn: Transaction) -> int:
    """What open disputes hold of the payment, in minor units of its currency (never more than was captured): not
    refundable until decided."""
    held: int = sum(dispute.amount for dispute in transaction_open_disputes(txn))
    return min(held, txn.captured_amount)


def disputed_filter(disputed: bool) -> Q:
    """Transactions whose `disputed` is `disputed`, as one EXISTS per row (no join to multiply rows)."""
    dispute_model = Transaction._meta.get_field(DISPUTES).related_model
    exists = Exists(dispute_model.objects.filter(transaction=OuterRef("pk"), state__in=DISPUTED_STATES))  # type: ignore[union-attr]
    return Q(exists) if disputed else ~Q(exists)
