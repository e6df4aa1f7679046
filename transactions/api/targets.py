"""Transaction and refund targets of outbox events, rendered as the API shows them (registered in
`TransactionsConfig.ready`): a webhook's `target` is what `GET /transactions/{id}` or `GET /refunds/{id}` answers."""

from __future__ import annotations

from typing import Any

from transactions.api.serializers.outputs import RefundOutput, TransactionOutput
from transactions.models import Refund, Transaction


def transaction_target(transaction_id: str) -> dict[str, Any] | None:
    txn = Transaction.objects.select_related("payment_service").filter(pk=transaction_id).first()  # read by the answer
    return TransactionOutput(txn).data if txn is not None else None


def refund_target(refund_id: str) -> dict[str, Any] | None:
    refund = Refund.objects.select_related("transaction").filter(pk=refund_id).first()
    return RefundOutput(refund).data if refund is not None else None
