"""The sandbox's card payouts: the card decides, and the same reference is answered with the first decision, never
paid twice (what recovery relies on)."""

import pytest

from payments.connectors import CardDetails
from payments.connectors.base import Outcome
from payments.connectors.models import SandboxOperation
from paymentservices.processors.paying_out import PayoutRequest
from paymentservices.processors.sandbox import PROCESSOR

pytestmark = pytest.mark.django_db


def _request(number: str, reference: str = "payout-1", amount: int = 1000) -> PayoutRequest:
    card = CardDetails(number=number, expiration_month=12, expiration_year=2039)
    return PayoutRequest(reference=reference, amount=amount, currency="USD", card=card)


def _pay_out(request: PayoutRequest):
    assert PROCESSOR.payouts is not None
    return PROCESSOR.payouts.pay_out(credentials={"merchant_id": "test"}, request=request)


@pytest.mark.parametrize(
    ("number", "outcome", "error_code"),
    [
        ("4111111111111111", Outcome.APPROVED, None),
        ("4000000000000002", Outcome.DECLINED, "issuer_decline"),
        ("4000000000000127", Outcome.DECLINED, "unsupported_card"),
        ("4000000000000119", Outcome.FAILED, "service_error"),
    ],
)
def test_the_card_decides(number, outcome, error_code):
    result = _pay_out(_request(number))

    assert (result.outcome, result.error_code) == (outcome, error_code)
    assert SandboxOperation.objects.filter(operation="payout").count() == (outcome is not Outcome.FAILED)


def test_the_same_reference_is_answered_with_the_first_decision():
    first = _pay_out(_request("4111111111111111", amount=1000))
    again = _pay_out(_request("4111111111111111", amount=1000))

    assert again == first
    assert [op.amount for op in SandboxOperation.objects.filter(operation="payout")] == [1000]


def test_its_features_say_it_pays_out():
    assert PROCESSOR.features["payouts"] is True
