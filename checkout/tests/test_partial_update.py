"""A checkout session update is a typed partial update: a field left out keeps its value, None clears it, and a
field the session does not take is refused at the call."""

import pytest

from checkout.services import checkout_session_update
from checkout.tests.factories import CheckoutSessionFactory

pytestmark = pytest.mark.django_db


def test_only_the_given_fields_change_and_none_clears(merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account, amount=1299, currency="USD", country="GB")

    checkout_session_update(session=session, country=None, amount=500)

    session.refresh_from_db()
    assert (session.amount, session.currency, session.country) == (500, "USD", None)


def test_a_field_the_session_does_not_take_is_refused(merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account)

    with pytest.raises(TypeError):
        checkout_session_update(session=session, postal_code="SW1")  # type: ignore[call-arg]
