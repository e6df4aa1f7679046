"""What the merchant's webhook receivers are told about transactions and refunds (docs/webhooks.md).

The services call these inside the transaction that makes the change, so the notification commits with it
(`payments.outbox`). Names follow upstream's webhook event names; the targets are rendered as the API shows
them (`transactions.api.targets`).
"""

from __future__ import annotations

from payments.outbox import outbox_publish
from transactions.models import Refund, Transaction, TransactionStatus

S = TransactionStatus
TRANSACTION_TARGET = "transaction"
REFUND_TARGET = "refund"

# A status change is named after the status it reaches ...
STATUS_EVENTS: dict[str, str] = {
    S.PROCESSING: "transaction.processing",
    S.BUYER_APPROVAL_PENDING: "transaction.buyer-approval-pending",
    S.AUTHORIZATION_SUCCEEDED: "transaction.authorized",
    S.AUTHORIZATION_DECLINED: "transaction.declined",
    S.AUTHORIZATION_FAILED: "transaction.failed",
    S.AUTHORIZATION_VOIDED: "transaction.voided",
    S.AUTHORIZATION_VOID_PENDING: "transaction.void-pending",
    S.CAPTURE_PENDING: "transaction.capture-pending",
    S.CAPTURE_SUCCEEDED: "transaction.captured",
}
# ... except what leaves the status as it was (a refused capture or void returns to `authorization_succeeded`; an
# increment never leaves it): named after what happened. The increment's names are ours (upstream names none).
ACTION_EVENTS: dict[str, str] = {
    "capture_declined": "transaction.capture-declined",
    "capture_failed": "transaction.capture-failed",
    "void_declined": "transaction.void-declined",
    "void_failed": "transaction.void-failed",
    "authorization_incremented": "transaction.authorization-incremented",
    "authorization_increment_declined": "transaction.authorization-increment-declined",
    "authorization_increment_failed": "transaction.authorization-increment-failed",
}
REFUND_EVENTS: dict[str, str] = {
    Refund.Status.PROCESSING: "refund.pending",
    Refund.Status.SUCCEEDED: "refund.succeeded",
    Refund.Status.DECLINED: "refund.declined",
    Refund.Status.FAILED: "refund.failed",
    Refund.Status.VOIDED: "refund.voided",
}


def transaction_notify(txn: Transaction, *, event_name: str) -> None:
    """The transaction's status just changed (`event_name` is the history event that recorded it)."""
    outbox_publish(
        merchant_account_id=txn.merchant_account_id,
        name=ACTION_EVENTS.get(event_name) or STATUS_EVENTS[txn.status],
        target_type=TRANSACTION_TARGET,
        target_id=str(txn.pk),
    )


def refund_notify(refund: Refund) -> None:
    """The refund was just created or reached a new status."""
    outbox_publish(
        merchant_account_id=refund.merchant_account_id,
        name=REFUND_EVENTS[refund.status],
        target_type=REFUND_TARGET,
        target_id=str(refund.pk),
    )
