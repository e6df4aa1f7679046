"""Real concurrent writers against PostgreSQL: the unique constraint, not luck, decides."""

import pytest
from rest_framework.test import APIClient

from buyers.models import Buyer, ShippingDetails
from buyers.services import MAX_SHIPPING_DETAILS_PER_BUYER
from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from payments.tests.races import at_once

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _race(token: str, path: str, body: dict, writers: int = 2) -> list[int]:
    """POST `body` to `path` from `writers` threads released together; their statuses."""

    def create() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        return client.post(path, body, format="json").status_code

    return at_once([create] * writers)


def test_two_creates_with_the_same_external_identifier_give_one_201_and_one_409(token_for, merchant_account):
    statuses = _race(token_for(["buyers.write"]), "/buyers", {"external_identifier": "race"})

    assert sorted(statuses) == [201, 409]
    assert Buyer.objects.filter(external_identifier="race").count() == 1


def test_racing_shipping_details_creates_never_pass_the_bound(token_for, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    ShippingDetailsFactory.create_batch(MAX_SHIPPING_DETAILS_PER_BUYER - 1, buyer=buyer)

    statuses = _race(token_for(["buyers.write"]), f"/buyers/{buyer.pk}/shipping-details", {"first_name": "Ada"}, 3)

    assert sorted(statuses) == [201, 409, 409]
    assert ShippingDetails.objects.filter(buyer=buyer).count() == MAX_SHIPPING_DETAILS_PER_BUYER
