"""The official `gr4vy` SDK, unchanged, against a running server: every buyers operation end to end."""

import pytest
from gr4vy import errors, models

from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_create_get_update_list_delete(sdk):
    created = sdk.buyers.create(
        display_name="Ada Lovelace",
        external_identifier="ada-1",
        billing_details={
            "first_name": "Ada",
            "email_address": "ada@example.com",
            "phone_number": "+442071838750",
            "address": {"city": "London", "country": "GB", "state_code": "GB-LND"},
            "tax_id": {"value": "GB123456789", "kind": "gb.vat"},
        },
    )
    assert isinstance(created, models.Buyer)
    assert (created.display_name, created.merchant_account_id) == ("Ada Lovelace", "default")
    assert created.billing_details.address.city == "London"

    fetched = sdk.buyers.get(buyer_id=created.id)
    assert fetched.id == created.id
    assert fetched.created_at == created.created_at

    updated = sdk.buyers.update(buyer_id=created.id, display_name="Ada King")
    assert updated.display_name == "Ada King"
    assert updated.external_identifier == "ada-1"  # PUT leaves absent fields alone
    assert updated.billing_details.first_name == "Ada"

    page = sdk.buyers.list(search="king")
    assert [buyer.id for buyer in page.result.items] == [created.id]

    sdk.buyers.delete(buyer_id=created.id)
    assert not Buyer.objects.exists()


def test_paging_with_next_visits_every_buyer_once_and_stops(sdk, merchant_account):
    expected = {str(buyer.id) for buyer in BuyerFactory.create_batch(45, merchant_account=merchant_account)}

    seen, pages = [], 0
    page = sdk.buyers.list(limit=20)
    while page is not None:
        pages += 1
        seen.extend(buyer.id for buyer in page.result.items)
        page = page.next()

    assert pages == 3
    assert len(seen) == len(set(seen)) == 45
    assert set(seen) == expected


def test_list_filters_by_external_identifier(sdk, merchant_account):
    wanted = BuyerFactory(merchant_account=merchant_account, external_identifier="c-1")
    BuyerFactory(merchant_account=merchant_account, external_identifier="c-2")

    page = sdk.buyers.list(external_identifier="c-1")

    assert [buyer.id for buyer in page.result.items] == [str(wanted.id)]
    assert page.next() is None


def test_missing_buyer_is_a_typed_404(sdk):
    with pytest.raises(errors.Error404) as raised:
        sdk.buyers.get(buyer_id="6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11")

    assert raised.value.data.code == "not_found"


def test_invalid_input_is_a_typed_400_naming_the_field(sdk):
    with pytest.raises(errors.Error400) as raised:
        sdk.buyers.create(display_name="Ada", billing_details={"phone_number": "not a phone"})

    assert [detail.pointer for detail in raised.value.data.details] == ["/billing_details/phone_number"]
    assert not Buyer.objects.exists()


def test_duplicate_external_identifier_is_a_typed_409(sdk, merchant_account):
    BuyerFactory(merchant_account=merchant_account, external_identifier="taken")

    with pytest.raises(errors.Error409):
        sdk.buyers.create(external_identifier="taken")


def test_missing_scope_is_a_typed_403(sdk_client):
    read_only = sdk_client(scopes=["buyers.read"])
    with pytest.raises(errors.Error403):
        read_only.buyers.create(display_name="Nope")
