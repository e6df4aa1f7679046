"""The card payment every processor's connector tests ask for, written once."""

from __future__ import annotations

import uuid
from typing import Any

from payments.connectors.base import AuthorizationRequest, CardDetails


def card_request(
    number: str = "4111111111111111",
    *,
    currency: str = "EUR",
    amount: int = 1299,
    capture: bool = False,
    expiry: tuple[int, int] = (3, 2030),
    security_code: str = "737",
    reference: str | None = None,
    **extra: Any,
) -> AuthorizationRequest:
    """An authorization of `amount` on the card `number`, with a fresh reference unless one is given."""
    month, year = expiry
    card = CardDetails(number=number, expiration_month=month, expiration_year=year, security_code=security_code)
    return AuthorizationRequest(
        card=card,
        amount=amount,
        currency=currency,
        capture=capture,
        reference=reference or str(uuid.uuid4()),
        **extra,
    )
