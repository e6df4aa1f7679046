"""`x-gr4vy-merchant-account-id` picks the account a request acts for; the key must be allowed to act for it."""

import pytest
from rest_framework.test import APIClient

from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory
from payments.accounts.keys import generate_private_key, mint_token, public_pem
from payments.accounts.services import api_key_register
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db

URL = "/buyers"


def _ids(response) -> list[str]:
    return [item["id"] for item in response.json()["items"]]


def _assert_forbidden(response) -> None:
    assert response.status_code == 403
    body = response.json()
    assert (body["type"], body["code"], body["status"]) == ("error", "forbidden", 403)


def test_absent_header_acts_for_the_default_account(api_client, merchant_account, other_merchant_account):
    mine = BuyerFactory(merchant_account=merchant_account)
    BuyerFactory(merchant_account=other_merchant_account)

    response = api_client(scopes=["buyers.read"]).get(URL)

    assert response.status_code == 200
    assert _ids(response) == [str(mine.id)]


def test_unknown_account_is_403_naming_it(api_client):
    response = api_client(scopes=["buyers.read"], merchant_account_id="nobody").get(URL)

    _assert_forbidden(response)
    assert "nobody" in response.json()["message"]


@pytest.mark.parametrize(
    "header",
    ["has\x00nul", "x" * 300, "not a slug", "../default"],
    ids=["nul byte", "too long", "spaces", "path"],
)
def test_malformed_account_header_is_403_not_500(api_client, header):
    response = api_client(scopes=["buyers.read"], merchant_account_id=header).get(URL)

    _assert_forbidden(response)


def test_key_bound_to_another_account_is_403(api_client, other_merchant_account):
    """The `api_key` fixture is bound to `default`; `other` exists but is not its account."""
    response = api_client(scopes=["buyers.read"], merchant_account_id="other").get(URL)

    _assert_forbidden(response)


def test_key_bound_to_all_accounts_acts_for_any(merchant_account, other_merchant_account):
    private_key, private_pem = generate_private_key()
    api_key_register(public_key_pem=public_pem(private_key), merchant_account=None)
    theirs = BuyerFactory(merchant_account=other_merchant_account)
    mine = BuyerFactory(merchant_account=merchant_account)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {mint_token(private_pem, scopes=['buyers.read'])}")

    default_page = client.get(URL)
    other_page = client.get(URL, HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID="other")

    assert _ids(default_page) == [str(mine.id)]
    assert _ids(other_page) == [str(theirs.id)]


@pytest.mark.parametrize("header", ["", " ", "\t"], ids=["empty", "space", "tab"])
@pytest.mark.parametrize(("method", "url"), [("get", URL), ("post", URL)], ids=["read", "write"])
def test_an_empty_account_header_is_a_400_naming_it_not_the_default_account(
    api_client, merchant_account, header, method, url
):
    BuyerFactory(merchant_account=merchant_account)
    client = api_client(scopes=["buyers.read", "buyers.write"])

    response = getattr(client, method)(url, {}, format="json", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID=header)

    body = assert_error(response, 400, "/x-gr4vy-merchant-account-id", location="header")
    assert body["details"][0]["type"] == "EmptyMerchantAccountHeader"
    assert Buyer.objects.count() == 1
