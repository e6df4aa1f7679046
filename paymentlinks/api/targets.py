"""How a payment link is shown in a webhook: as the API shows it."""

from __future__ import annotations

from typing import Any

from paymentlinks.api.serializers import PaymentLinkOutput
from paymentlinks.models import PaymentLink


def payment_link_target(payment_link_id: str) -> dict[str, Any] | None:
    link = PaymentLink.objects.filter(pk=payment_link_id).first()
    if link is None:
        return {"type": "payment-link", "id": payment_link_id}
    return PaymentLinkOutput(link).data
