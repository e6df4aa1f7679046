"""The sandbox keeps a stored card under a token of its own, the same for one method every time, and refuses the
cards its table declines; a payment sent its token is decided as the card it kept, whatever card is beside it."""

import pytest

from payments.connectors.base import AuthorizationRequest, CardDetails, Outcome, ProcessorToken
from paymentservices.processors.sandbox.connector import (
    KEPT_BY_LAST_FOUR,
    MERCHANT_INITIATED_REFUSED,
    TEST_CARDS,
    SandboxConnector,
)
from paymentservices.processors.sandbox.tokens import TOKEN_PREFIX, SandboxTokens, sandbox_token
from paymentservices.processors.seam import KeptCard, TokenRefused


def _card(number: str) -> CardDetails:
    return CardDetails(number=number, expiration_month=12, expiration_year=2039)


def test_a_card_is_kept_under_a_token_derived_from_the_method():
    kept = SandboxTokens().keep(credentials={}, card=_card("4111111111111111"), reference="method-1")

    assert kept == KeptCard(token=sandbox_token("method-1", "4111111111111111"))
    assert kept.token.startswith(TOKEN_PREFIX)
    assert "411111" not in kept.token  # its last four at most
    assert sandbox_token("method-2") != kept.token


@pytest.mark.parametrize("number", ["4000000000000002", "4000000000009995"], ids=["do-not-honor", "no-funds"])
def test_a_declined_card_is_refused(number):
    with pytest.raises(TokenRefused, match="refused the card"):
        SandboxTokens().keep(credentials={}, card=_card(number), reference="method-1")


def test_each_test_card_has_last_four_digits_of_its_own():
    assert len(KEPT_BY_LAST_FOUR) == len(TEST_CARDS) + 1


def _pay(token: str, *, number: str = "4111111111111111", merchant_initiated: bool = False) -> Outcome:
    request = AuthorizationRequest(
        card=_card(number),
        amount=1000,
        currency="USD",
        capture=False,
        reference="txn-kept-1",
        merchant_initiated=merchant_initiated,
        processor_token=ProcessorToken(token=token),
    )
    return SandboxConnector().authorize(request).outcome


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kept", "merchant_initiated", "outcome"),
    [
        ("4111111111111111", True, Outcome.APPROVED),
        (MERCHANT_INITIATED_REFUSED, False, Outcome.APPROVED),
        (MERCHANT_INITIATED_REFUSED, True, Outcome.DECLINED),
        ("4000000000000119", False, Outcome.FAILED),
        ("4242424242424242", True, Outcome.APPROVED),  # not a test card: approved, as any other
    ],
    ids=["approved", "mit-refused-buyer-present", "mit-refused", "no-answer", "other-card"],
)
def test_a_payment_sent_the_token_is_decided_as_the_card_kept_under_it(kept, merchant_initiated, outcome):
    token = SandboxTokens().keep(credentials={}, card=_card(kept), reference="method-1").token

    # The card beside the token is one the table declines: the token decides.
    assert _pay(token, number="4000000000000002", merchant_initiated=merchant_initiated) is outcome
