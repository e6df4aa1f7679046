"""Every code the sandbox's test cards answer has its plain words on the desk (processors/declines.py)."""

import pytest

from paymentservices.processors.declines import EXPLANATIONS
from paymentservices.processors.sandbox.connector import (
    MERCHANT_INITIATED_DECLINED,
    TEST_CARDS,
    THREE_D_SECURE_DECLINED,
)

CARDS = [*TEST_CARDS.values(), MERCHANT_INITIATED_DECLINED, THREE_D_SECURE_DECLINED]


@pytest.mark.parametrize("code", sorted({card.error_code for card in CARDS if card.error_code}))
def test_every_code_a_test_card_answers_is_explained(code):
    assert code in EXPLANATIONS
