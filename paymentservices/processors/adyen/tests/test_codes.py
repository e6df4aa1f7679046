"""Every code Adyen's tables answer has its plain words on the desk (paymentservices/processors/declines.py)."""

import pytest

from paymentservices.processors.adyen.codes import (
    DEFAULT_REFUSAL,
    REFUSAL_REASONS,
    SHOPPER_ACTION_RESULTS,
    UNSUPPORTED_RESULTS,
    VALIDATION_ERRORS,
)
from paymentservices.processors.declines import EXPLANATIONS

ANSWERED = {
    *REFUSAL_REASONS.values(),
    *VALIDATION_ERRORS.values(),
    *SHOPPER_ACTION_RESULTS.values(),
    *UNSUPPORTED_RESULTS.values(),
    DEFAULT_REFUSAL,
}


@pytest.mark.parametrize("code", sorted(ANSWERED))
def test_every_code_adyen_answers_is_explained(code):
    assert code in EXPLANATIONS
