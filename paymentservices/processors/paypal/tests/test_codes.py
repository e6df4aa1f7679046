"""Every code PayPal's table answers has its plain words on the desk (paymentservices/processors/declines.py)."""

import pytest

from paymentservices.processors.declines import EXPLANATIONS
from paymentservices.processors.paypal.connector import ISSUES


@pytest.mark.parametrize("code", sorted(set(ISSUES.values())))
def test_every_code_paypal_answers_is_explained(code):
    assert code in EXPLANATIONS
