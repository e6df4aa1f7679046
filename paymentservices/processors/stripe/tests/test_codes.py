"""Every code Stripe's table answers has its plain words on the desk (paymentservices/processors/declines.py)."""

import pytest

from paymentservices.processors.declines import EXPLANATIONS
from paymentservices.processors.stripe.codes import DECLINE_CODES, DEFAULT_DECLINE


@pytest.mark.parametrize("code", sorted({*DECLINE_CODES.values(), DEFAULT_DECLINE}))
def test_every_code_stripe_answers_is_explained(code):
    assert code in EXPLANATIONS
