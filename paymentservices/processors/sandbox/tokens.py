"""The sandbox keeps stored cards (for demos and tests): its token is derived from our reference of the stored method
(and, for a card of its table, ends with the card's last four digits, so a payment sent the token is decided as that
card: docs/test-cards.md), and a card its table declines is refused, as an issuer refuses the check a processor runs
before keeping a card."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from payments.connectors.base import CardDetails, Outcome
from paymentservices.processors.sandbox.connector import TEST_CARDS, kept_tag
from paymentservices.processors.seam import KeptCard, StoredTokens, TokenRefused

TOKEN_PREFIX = "sandbox-token-"  # noqa: S105 - a prefix, not a secret


def sandbox_token(reference: str, number: str = "") -> str:
    """The sandbox's token of a stored method, the same every time it is kept."""
    return f"{TOKEN_PREFIX}{hashlib.sha256(reference.encode()).hexdigest()[:16]}{kept_tag(number)}"


class SandboxTokens(StoredTokens):
    def keep(self, *, credentials: Mapping[str, str], card: CardDetails, reference: str) -> KeptCard:
        test_card = TEST_CARDS.get(card.number)
        if test_card is not None and test_card.outcome is Outcome.DECLINED:
            raise TokenRefused(f"The sandbox's issuer refused the card: {test_card.raw_response_description}.")
        return KeptCard(token=sandbox_token(reference, card.number))

    def forget(self, *, credentials: Mapping[str, str], kept: KeptCard) -> None:
        """Nothing to drop: the sandbox keeps nothing of the card."""
