"""The official `gr4vy` SDK, unchanged, against a running server: API key pairs and roles, with a key made over the
API, and a deleted key's next request refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gr4vy import Gr4vy, auth, errors, models

from payments.accounts.models import ApiKey
from payments.tests.factories import MerchantAccountFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def platform_sdk(live_server, all_accounts_client, all_accounts_private_key_pem, merchant_account) -> Iterator[Gr4vy]:
    """An SDK client whose tokens are signed by the first key, made by the command for every merchant account."""
    client = Gr4vy(server_url=live_server.url, bearer_auth=auth.with_token(all_accounts_private_key_pem))
    yield client
    client.__exit__(None, None, None)


def _sdk(live_server, private_pem: str) -> Gr4vy:
    return Gr4vy(server_url=live_server.url, bearer_auth=auth.with_token(private_pem))


def _role_ids(sdk: Gr4vy, *slugs: str) -> list[str]:
    roles = sdk.roles.list().result.items
    return [role.id for role in roles if role.slug in slugs]


def test_a_key_made_over_the_api_lists_updates_and_reads_roles(live_server, platform_sdk):
    made = platform_sdk.api_key_pairs.create(
        display_name="Operations", role_ids=_role_ids(platform_sdk, "administrator")
    )
    assert isinstance(made, models.APIKeyPair)
    assert made.private_key.startswith("-----BEGIN PRIVATE KEY-----")
    ops = _sdk(live_server, made.private_key)

    roles = ops.roles.list(limit=2)
    slugs = []
    while roles is not None:
        slugs.extend(role.slug for role in roles.result.items)
        roles = roles.next()
    assert slugs == ["administrator", "viewer", "payments", "embed"]

    reporting = ops.api_key_pairs.create(
        display_name="Reporting", role_ids=_role_ids(ops, "viewer"), merchant_account_ids=["default"]
    )
    page, names = ops.api_key_pairs.list(limit=2), []
    while page is not None:
        names.extend(item.display_name for item in page.result.items)
        page = page.next()
    assert names[:2] == ["Reporting", "Operations"]

    fetched = ops.api_key_pairs.get(api_key_pair_id=reporting.id)
    assert (fetched.private_key, [account.id for account in fetched.merchant_accounts]) == (None, ["default"])
    assert fetched.creator.name == "Operations"

    updated = ops.api_key_pairs.update(api_key_pair_id=reporting.id, display_name="Reports", active=False)
    assert (updated.display_name, updated.active) == ("Reports", False)
    assert ApiKey.objects.get(pk=reporting.id).display_name == "Reports"
    assert ops.api_key_pairs.get(api_key_pair_id=made.id).last_used_at is not None


def test_a_deleted_keys_next_request_is_a_typed_401(live_server, platform_sdk):
    made = platform_sdk.api_key_pairs.create(display_name="Leaving", role_ids=_role_ids(platform_sdk, "viewer"))
    leaving = _sdk(live_server, made.private_key)
    assert leaving.buyers.list().result.items == []

    platform_sdk.api_key_pairs.delete(api_key_pair_id=made.id)

    with pytest.raises(errors.Error401):
        leaving.buyers.list()
    with pytest.raises(errors.Error404):
        platform_sdk.api_key_pairs.get(api_key_pair_id=made.id)


def test_more_power_than_the_callers_is_a_typed_403(live_server, platform_sdk):
    made = platform_sdk.api_key_pairs.create(
        display_name="Seller", role_ids=_role_ids(platform_sdk, "administrator"), merchant_account_ids=["default"]
    )
    seller = _sdk(live_server, made.private_key)

    with pytest.raises(errors.Error403) as raised:
        seller.api_key_pairs.create(display_name="Everywhere", role_ids=_role_ids(seller, "viewer"))

    assert [detail.pointer for detail in raised.value.data.details] == ["/merchant_account_ids"]


def test_a_key_reaching_two_accounts_is_made_and_read_and_acts_for_those_alone(
    live_server, platform_sdk, other_merchant_account
):
    MerchantAccountFactory(id="third")
    made = platform_sdk.api_key_pairs.create(
        display_name="Two shops", role_ids=_role_ids(platform_sdk, "viewer"), merchant_account_ids=["other", "default"]
    )
    fetched = platform_sdk.api_key_pairs.get(api_key_pair_id=made.id)
    assert [(account.id, account.display_name) for account in fetched.merchant_accounts] == [
        ("default", "Default"),
        ("other", "Other"),
    ]

    two_shops = _sdk(live_server, made.private_key)
    for account in ("default", "other"):
        assert two_shops.buyers.list(merchant_account_id=account).result.items == []
    with pytest.raises(errors.Error403):
        two_shops.buyers.list(merchant_account_id="third")
