"""The sandbox keeps a stored card under a token of its own, the same for one method every time, and refuses the
cards its table declines."""

import pytest

from payments.connectors.base import CardDetails
from paymentservices.processors.sandbox.tokens import TOKEN_PREFIX, SandboxTokens, sandbox_token
from paymentservices.processors.seam import KeptCard, TokenRefused


def _card(number: str) -> CardDetails:
    return CardDetails(number=number, expiration_month=12, expiration_year=2039)


def test_a_card_is_kept_under_a_token_derived_from_the_method():
    kept = SandboxTokens().keep(credentials={}, card=_card("4111111111111111"), reference="method-1")

    assert kept == KeptCard(token=sandbox_token("method-1"))
    assert kept.token.startswith(TOKEN_PREFIX)
    assert "4111111111111111" not in kept.token
    assert sandbox_token("method-2") != kept.token


@pytest.mark.parametrize("number", ["4000000000000002", "4000000000009995"], ids=["do-not-honor", "no-funds"])
def test_a_declined_card_is_refused(number):
    with pytest.raises(TokenRefused, match="refused the card"):
        SandboxTokens().keep(credentials={}, card=_card(number), reference="method-1")
