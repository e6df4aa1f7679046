"""A payment method update is a typed partial update: a field left out keeps its value, None clears it, and a field
the method does not take is refused at the call."""

import pytest

from paymentmethods.services import payment_method_update
from paymentmethods.tests.factories import PaymentMethodFactory

pytestmark = pytest.mark.django_db


def test_only_the_given_fields_change_and_none_clears(merchant_account):
    method = payment_method_update(
        method=PaymentMethodFactory(), scheme_transaction_id="123456789012345", transaction_link_id="link-1"
    )

    payment_method_update(method=method, transaction_link_id=None)

    method.refresh_from_db()
    assert (method.scheme_transaction_id, method.transaction_link_id) == ("123456789012345", None)


def test_a_field_the_method_does_not_take_is_refused(merchant_account):
    with pytest.raises(TypeError):
        payment_method_update(method=PaymentMethodFactory(), buyer_id=None)  # type: ignore[call-arg]
