"""Typed partial updates: a field left out keeps its value, None clears it, an unknown field is refused at the call."""

import pytest

from buyers.services import buyer_update, shipping_details_update
from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from payments.partial import UNCHANGED, changed_fields

pytestmark = pytest.mark.django_db


def test_changed_fields_leaves_out_only_the_unchanged():
    assert changed_fields(a=UNCHANGED, b=None, c=0, d="") == {"b": None, "c": 0, "d": ""}


def test_an_update_sets_what_it_is_given_and_clears_with_none(merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account, display_name="Ada", account_number="1")

    buyer_update(buyer=buyer, account_number=None)

    buyer.refresh_from_db()
    assert (buyer.display_name, buyer.account_number) == ("Ada", None)


@pytest.mark.parametrize(
    ("update", "target"),
    [
        (buyer_update, lambda account: {"buyer": BuyerFactory(merchant_account=account)}),
        (
            shipping_details_update,
            lambda account: {"shipping_details": ShippingDetailsFactory(buyer__merchant_account=account)},
        ),
    ],
    ids=["buyer", "shipping details"],
)
def test_a_field_an_update_does_not_change_is_refused_at_the_call(merchant_account, update, target):
    with pytest.raises(TypeError):
        update(**target(merchant_account), merchant_account_id="other")
