"""BuyerOutput renders through its compiled plan; it must say exactly what DRF's generic path says."""

from datetime import datetime, timedelta, timezone

import pytest
from rest_framework import serializers

from buyers.outputs import BuyerOutput
from buyers.tests.factories import BuyerFactory

pytestmark = pytest.mark.django_db


def _generic(buyer) -> dict:
    """DRF's own field-by-field rendering of the declared fields."""
    return dict(serializers.Serializer.to_representation(BuyerOutput(), buyer))


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"display_name": None, "external_identifier": None, "billing_details": None, "account_number": None},
        {"account_number": "ACC-1", "billing_details": {"address": {"city": "Paris", "country": "FR"}}},
    ],
    ids=["typical", "nulls", "nested-details"],
)
def test_direct_rendering_equals_the_generic_one(merchant_account, fields):
    buyer = BuyerFactory(merchant_account=merchant_account, **fields)
    buyer.refresh_from_db()

    assert BuyerOutput(buyer).data == _generic(buyer)


def test_timestamps_are_rendered_in_utc_whatever_their_zone(merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    buyer.created_at = datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=timezone(timedelta(hours=5)))

    data = BuyerOutput(buyer).data

    assert data["created_at"] == "2026-01-01T22:04:05.000006+00:00"
    assert data == _generic(buyer)


def test_every_declared_field_is_rendered(merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)

    assert list(BuyerOutput(buyer).data) == [
        "type",
        "id",
        "reconciliation_id",
        "merchant_account_id",
        "display_name",
        "external_identifier",
        "billing_details",
        "account_number",
        "created_at",
        "updated_at",
    ]
