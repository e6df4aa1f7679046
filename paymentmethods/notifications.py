"""What the merchant's webhook receivers are told about stored payment methods (docs/webhooks.md).

The services call this inside the transaction that makes the change (`payments.outbox`); the target is rendered
as `GET /payment-methods/{id}` answers (`paymentmethods.api.targets`), or null once the method is deleted.
"""

from __future__ import annotations

from paymentmethods.models import PaymentMethod
from payments.outbox import outbox_publish

PAYMENT_METHOD_TARGET = "payment-method"
CREATED = "payment-method.created"
UPDATED = "payment-method.updated"
DELETED = "payment-method.deleted"


def payment_method_notify(method: PaymentMethod, *, name: str) -> None:
    """The method was created, changed or deleted (`name`)."""
    outbox_publish(
        merchant_account_id=method.merchant_account_id,
        name=name,
        target_type=PAYMENT_METHOD_TARGET,
        target_id=str(method.pk),
    )
