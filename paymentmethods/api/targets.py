"""The payment method target of outbox events (registered in `PaymentMethodsConfig.ready`): a webhook's `target` is
what `GET /payment-methods/{id}` answers; a method deleted since is named by its id alone."""

from __future__ import annotations

from typing import Any

from paymentmethods.api.serializers import PaymentMethodOutput
from paymentmethods.models import PaymentMethod


def payment_method_target(payment_method_id: str) -> dict[str, Any] | None:
    method = PaymentMethod.objects.select_related("card", "buyer").filter(pk=payment_method_id).first()
    if method is None:
        return {"type": "payment-method", "id": payment_method_id}
    return PaymentMethodOutput(method).data
