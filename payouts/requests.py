"""What a client asks a new payout to be, typed: the one input of `payouts.services.payout_create`. The API's input
serializer makes it; so may the desk's form and tests."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PayoutCard:
    """`{"method": "card", number, expiration_date}`: a card given for this payout only."""

    number: str = field(repr=False)
    expiration_month: int
    expiration_year: int


@dataclass(frozen=True)
class PayoutStoredCard:
    """`{"method": "id", "id": ...}`: a stored payment method of the account (of the buyer, when one is named)."""

    id: uuid.UUID


@dataclass(frozen=True)
class PayoutCreateRequest:
    """A new payout: its amount and card, the service that pays it out (None: the first that can), and what it
    records (upstream's `PayoutCreate`)."""

    amount: int
    currency: str
    payment_method: PayoutCard | PayoutStoredCard
    payment_service_id: uuid.UUID | None = None
    category: str | None = None
    external_identifier: str | None = None
    buyer_id: uuid.UUID | None = None
    buyer_external_identifier: str | None = None
    guest_buyer: dict[str, Any] | None = None
    merchant: dict[str, Any] | None = None
