"""Who may do what to buyers: the scope matrix and merchant account isolation."""

import pytest
from rest_framework.test import APIClient

from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory
from payments.accounts.keys import generate_private_key, mint_token, public_pem
from payments.accounts.services import api_key_register

pytestmark = pytest.mark.django_db

# operation -> (method, path template, body, success status, kind)
OPERATIONS = {
    "list": ("get", "/buyers", None, 200, "read"),
    "get": ("get", "/buyers/{id}", None, 200, "read"),
    "create": ("post", "/buyers", {"display_name": "New"}, 201, "write"),
    "update": ("put", "/buyers/{id}", {"display_name": "Changed"}, 200, "write"),
    "delete": ("delete", "/buyers/{id}", None, 204, "write"),
}
# scopes -> the kinds of operation they open
GRANTS = {
    ("buyers.read",): {"read"},
    ("buyers.write",): {"write"},
    ("buyers.read", "buyers.write"): {"read", "write"},
    ("*.read",): {"read"},
    ("*.write",): {"write"},
    ("*.read", "*.write"): {"read", "write"},
    ("embed",): set(),
    ("gift-cards.read", "gift-cards.write"): set(),
    ("transactions.write", "checkout-sessions.read"): set(),
    ("buyers.billing-details.read",): set(),
}
MATRIX = [(operation, scopes) for operation in OPERATIONS for scopes in GRANTS]


def call(client, operation: str, buyer: Buyer):
    method, path, body, _, _ = OPERATIONS[operation]
    return getattr(client, method)(path.format(id=buyer.id), body, format="json")


@pytest.mark.parametrize(
    ("operation", "scopes"), MATRIX, ids=[f"{operation}-{'+'.join(scopes)}" for operation, scopes in MATRIX]
)
def test_scope_matrix(api_client, merchant_account, operation, scopes):
    buyer = BuyerFactory(merchant_account=merchant_account, display_name="Original")
    _, _, _, success, kind = OPERATIONS[operation]

    response = call(api_client(scopes=list(scopes)), operation, buyer)

    if kind in GRANTS[scopes]:
        assert response.status_code == success, response.content
    else:
        assert response.status_code == 403
        body = response.json()
        assert (body["type"], body["code"]) == ("error", "forbidden")
        assert f"buyers.{kind}" in body["message"]
        buyer.refresh_from_db()
        assert buyer.display_name == "Original"
        assert Buyer.objects.count() == 1


@pytest.fixture
def all_accounts_client(merchant_account, other_merchant_account):
    """Acts for `default` with a key that could act for any account: isolation must not rely on the key."""
    private_key, private_pem = generate_private_key()
    api_key_register(public_key_pem=public_pem(private_key), merchant_account=None)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {mint_token(private_pem)}")
    return client


@pytest.fixture(params=["bound key", "all-accounts key"])
def default_client(request, api_client, merchant_account, other_merchant_account):
    if request.param == "bound key":
        return api_client(scopes=["*.read", "*.write"])
    return request.getfixturevalue("all_accounts_client")


def test_list_shows_only_the_accounts_buyers(default_client, merchant_account, other_merchant_account):
    mine = BuyerFactory(merchant_account=merchant_account)
    BuyerFactory(merchant_account=other_merchant_account, display_name=mine.display_name)

    assert [item["id"] for item in default_client.get("/buyers").json()["items"]] == [str(mine.id)]
    assert default_client.get("/buyers", {"search": mine.display_name}).json()["items"][0]["id"] == str(mine.id)


def test_external_identifier_filter_does_not_cross_accounts(default_client, other_merchant_account):
    BuyerFactory(merchant_account=other_merchant_account, external_identifier="theirs")

    assert default_client.get("/buyers", {"external_identifier": "theirs"}).json()["items"] == []


@pytest.mark.parametrize("operation", ["get", "update", "delete"])
def test_another_accounts_buyer_is_404(default_client, other_merchant_account, operation):
    theirs = BuyerFactory(merchant_account=other_merchant_account, display_name="Theirs")
    before = Buyer.objects.values().get(pk=theirs.pk)

    response = call(default_client, operation, theirs)

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert Buyer.objects.values().get(pk=theirs.pk) == before


def test_created_buyer_belongs_to_the_requested_account(all_accounts_client, other_merchant_account):
    response = all_accounts_client.post(
        "/buyers", {"display_name": "There"}, format="json", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID="other"
    )

    assert response.status_code == 201
    assert response.json()["merchant_account_id"] == "other"
    assert Buyer.objects.get().merchant_account_id == "other"
