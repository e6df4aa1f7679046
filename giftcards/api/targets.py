"""Gift card targets of outbox events, rendered as the API shows them (registered in `GiftCardsConfig.ready`)."""

from __future__ import annotations

from typing import Any

from giftcards.api.serializers import GiftCardSummaryOutput
from giftcards.selectors import gift_card_balance_after


def gift_card_balance_target(entry_id: str) -> dict[str, Any] | None:
    """A `GiftCardSummary` of the card with the balance the ledger entry left."""
    summary = gift_card_balance_after(entry_id=entry_id)
    return GiftCardSummaryOutput(summary).data if summary is not None else None
