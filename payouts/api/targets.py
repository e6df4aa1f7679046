"""How a payout is shown in a webhook: as the API shows it."""

from __future__ import annotations

from typing import Any

from payouts.api.serializers import PayoutOutput
from payouts.models import Payout


def payout_target(payout_id: str) -> dict[str, Any] | None:
    payout = Payout.objects.select_related("payment_service", "merchant_account").filter(pk=payout_id).first()
    if payout is None:
        return {"type": "payout", "id": payout_id}
    return PayoutOutput(payout).data
