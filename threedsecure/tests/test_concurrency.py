"""Real concurrent writers against PostgreSQL: the primary key and the unique constraints, not luck, decide."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from payments.accounts.keys import mint_token
from payments.accounts.models import MerchantAccount
from payments.tests.races import at_once
from threedsecure.models import ThreeDSConfiguration

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

CONFIGURATION = {
    "scheme": "visa",
    "currency": None,
    "merchant_acquirer_bin": "412345",
    "merchant_acquirer_id": "acq-1",
    "merchant_name": "Example Shop",
    "merchant_country_code": "826",
    "merchant_category_code": "5411",
    "merchant_url": "https://shop.example.com",
    "metadata": {},
}


def _race(token: str, path: str, body: dict, writers: int = 3) -> list[int]:
    """POST `body` to `path` from `writers` threads released together; their statuses."""

    def create() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        return client.post(path, body, format="json").status_code

    return at_once([create] * writers)


@pytest.fixture
def token(all_accounts_client, all_accounts_private_key_pem, merchant_account) -> str:
    return mint_token(all_accounts_private_key_pem, scopes=["merchant-accounts.write"])


def test_racing_creates_of_one_merchant_account_give_one_201_and_409s(token):
    statuses = _race(token, "/merchant-accounts", {"id": "seller-race", "display_name": "Race"})

    assert sorted(statuses) == [201, 409, 409]
    assert MerchantAccount.objects.filter(pk="seller-race").count() == 1


@pytest.mark.parametrize("currency", [None, "EUR"], ids=["every-currency", "one-currency"])
def test_racing_configurations_for_one_scheme_and_currency_give_one_201(token, currency):
    body = {**CONFIGURATION, "currency": currency}

    statuses = _race(token, "/merchant-accounts/default/three-ds-configurations", body)

    assert sorted(statuses) == [201, 409, 409]
    assert ThreeDSConfiguration.objects.count() == 1
