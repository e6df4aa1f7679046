"""The official `gr4vy` SDK, unchanged, against a running server: merchant accounts, their 3-D Secure
configurations, and 3-D Secure scenarios, end to end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gr4vy import Gr4vy, auth, errors, models

from payments.accounts.models import MerchantAccount
from threedsecure.models import ThreeDSConfiguration, ThreeDSScenario

pytestmark = pytest.mark.django_db(transaction=True)

CARD = "4111111111111111"


@pytest.fixture
def platform_sdk(live_server, all_accounts_client, all_accounts_private_key_pem, merchant_account) -> Iterator[Gr4vy]:
    """An SDK client whose tokens are signed by a key made for every merchant account (every scope)."""
    client = Gr4vy(server_url=live_server.url, bearer_auth=auth.with_token(all_accounts_private_key_pem))
    yield client
    client.__exit__(None, None, None)


def test_create_get_update_list_merchant_accounts(platform_sdk):
    created = platform_sdk.merchant_accounts.create(id="seller-1", display_name="Seller One")
    assert isinstance(created, models.MerchantAccount)
    assert (created.id, created.display_name, created.account_updater_enabled) == ("seller-1", "Seller One", False)

    fetched = platform_sdk.merchant_accounts.get(merchant_account_id="seller-1")
    assert fetched.created_at == created.created_at

    updated = platform_sdk.merchant_accounts.update(merchant_account_id="seller-1", display_name="Seller Uno")
    assert updated.display_name == "Seller Uno"
    assert MerchantAccount.objects.get(pk="seller-1").display_name == "Seller Uno"

    seen, page = [], platform_sdk.merchant_accounts.list(limit=1)
    while page is not None:
        seen.extend(account.id for account in page.result.items)
        page = page.next()
    assert seen == ["seller-1", "default"]

    found = platform_sdk.merchant_accounts.list(search="uno")
    assert [account.id for account in found.result.items] == ["seller-1"]


def test_duplicate_is_a_typed_409(platform_sdk):
    with pytest.raises(errors.Error409) as raised:
        platform_sdk.merchant_accounts.create(id="default", display_name="Again")

    assert raised.value.data.code == "duplicate_record"


def test_an_unsupported_setting_is_a_typed_400_naming_it(platform_sdk):
    with pytest.raises(errors.Error400) as raised:
        platform_sdk.merchant_accounts.create(id="seller-2", display_name="Two", over_capture_percentage=10)

    assert [detail.pointer for detail in raised.value.data.details] == ["/over_capture_percentage"]
    assert not MerchantAccount.objects.filter(pk="seller-2").exists()


def test_a_key_bound_to_one_account_gets_a_typed_403(sdk):
    with pytest.raises(errors.Error403):
        sdk.merchant_accounts.list()


def test_three_ds_configurations(platform_sdk):
    configurations = platform_sdk.merchant_accounts.three_ds_configuration

    created = configurations.create(
        merchant_account_id="default",
        scheme="visa",
        currency="EUR",
        merchant_acquirer_bin="412345",
        merchant_acquirer_id="acq-1",
        merchant_name="Example Shop",
        merchant_country_code="826",
        merchant_category_code="5411",
        merchant_url="https://shop.example.com",
        metadata={"contract": "2026"},
    )
    assert isinstance(created, models.MerchantAccountThreeDSConfiguration)
    assert (created.scheme, created.currency) == ("visa", "EUR")

    updated = configurations.update(
        merchant_account_id="default", three_ds_configuration_id=created.id, merchant_name="Corner Shop"
    )
    assert updated.merchant_name == "Corner Shop"

    listed = configurations.list(merchant_account_id="default", currency="EUR")
    assert [item.id for item in listed.items] == [created.id]

    configurations.delete(merchant_account_id="default", three_ds_configuration_id=created.id)
    assert not ThreeDSConfiguration.objects.exists()


def test_three_ds_scenarios(sdk):
    created = sdk.three_ds_scenarios.create(
        conditions={"amount": 1299, "card_number": CARD},
        outcome={
            "version": "2.2.0",
            "authentication": {"transaction_status": "C"},
            "result": {"transaction_status": "Y"},
        },
    )
    assert isinstance(created, models.ThreeDSecureScenario)
    assert created.conditions.card_number == "411111******1111"
    assert created.outcome.result.transaction_status == "Y"

    updated = sdk.three_ds_scenarios.update(
        three_ds_scenario_id=created.id, outcome={"authentication": {"transaction_status": "N"}}
    )
    assert updated.outcome.authentication.transaction_status == "N"
    assert updated.conditions.amount == 1299

    page = sdk.three_ds_scenarios.list()
    assert [item.id for item in page.result.items] == [created.id]
    assert page.next() is None

    sdk.three_ds_scenarios.delete(three_ds_scenario_id=created.id)
    assert not ThreeDSScenario.objects.exists()


def test_a_challenge_without_a_result_is_a_typed_400(sdk):
    with pytest.raises(errors.Error400) as raised:
        sdk.three_ds_scenarios.create(conditions={}, outcome={"authentication": {"transaction_status": "C"}})

    assert [detail.pointer for detail in raised.value.data.details] == ["/outcome/result"]
