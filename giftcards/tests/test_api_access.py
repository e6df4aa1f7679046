"""The gift cards API: a buyer's gift cards, scopes, isolation between merchant accounts, query counts."""

import uuid

import pytest

from buyers.tests.factories import BuyerFactory
from giftcards.models import GiftCard
from giftcards.services import issued_card_redeem
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory
from giftcards.tests.test_api import SUMMARY_KEYS
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["gift-cards.read", "gift-cards.write"])


@pytest.fixture
def card(merchant_account):
    return IssuedGiftCardFactory(amount=5000, currency="USD")


def test_buyer_gift_cards_lists_the_buyers_cards_with_balances(client, merchant_account):
    buyer = BuyerFactory(external_identifier="shopper")
    mine = GiftCardFactory.create_batch(2, buyer=buyer)
    GiftCardFactory()

    by_id = client.get("/buyers/gift-cards", {"buyer_id": str(buyer.id)})
    by_external = client.get("/buyers/gift-cards", {"buyer_external_identifier": "shopper"})

    assert by_id.status_code == 200
    assert set(by_id.json()) == {"items"}
    assert [item["id"] for item in by_id.json()["items"]] == [str(mine[1].id), str(mine[0].id)]
    assert by_external.json() == by_id.json()
    item = by_id.json()["items"][0]
    assert set(item) == SUMMARY_KEYS
    assert (item["balance"], item["currency"], item["balance_error_code"]) == (5000, "USD", None)


@pytest.mark.parametrize("order_by", ["desc", "asc"])
def test_buyer_gift_cards_sort_by_usage(client, merchant_account, order_by):
    buyer = BuyerFactory()
    unused, used_once, used_twice = GiftCardFactory.create_batch(3, buyer=buyer)
    for reference in ("a", "b"):
        issued_card_redeem(card=used_twice.issued_card, amount=1, reference=reference)
    issued_card_redeem(card=used_once.issued_card, amount=1, reference="c")

    response = client.get(
        "/buyers/gift-cards", {"buyer_id": str(buyer.id), "sort_by": "usage_count", "order_by": order_by}
    )

    ids = [item["id"] for item in response.json()["items"]]
    expected = [str(used_twice.id), str(used_once.id), str(unused.id)]
    assert ids == (expected if order_by == "desc" else expected[::-1])


def test_buyer_gift_cards_of_an_unknown_buyer_is_empty(client):
    response = client.get("/buyers/gift-cards", {"buyer_id": str(uuid.uuid4())})

    assert response.status_code == 200
    assert response.json() == {"items": []}


@pytest.mark.parametrize(
    ("query", "pointer"),
    [
        ({}, "/buyer_id"),
        ({"buyer_id": str(uuid.uuid4()), "buyer_external_identifier": "x"}, "/buyer_external_identifier"),
        ({"buyer_id": "nope"}, "/buyer_id"),
        ({"buyer_id": str(uuid.uuid4()), "sort_by": "balance"}, "/sort_by"),
        ({"buyer_id": str(uuid.uuid4()), "order_by": "sideways"}, "/order_by"),
    ],
    ids=["no-buyer", "both-buyer-fields", "malformed-buyer-id", "unknown-sort", "unknown-order"],
)
def test_buyer_gift_cards_bad_query_is_400(client, query, pointer):
    response = client.get("/buyers/gift-cards", query)

    body = assert_error(response, 400, pointer)
    assert body["details"][0]["location"] == "query"


def test_buyer_gift_cards_route_is_not_a_buyer_id(api_client, merchant_account):
    response = api_client(scopes=["buyers.read"]).get("/buyers/gift-cards", {"buyer_id": str(uuid.uuid4())})

    # The gift card route answered (and refused the scope); the buyers router never saw it.
    assert_error(response, 403)


# --- scopes --------------------------------------------------------------------------------------------


@pytest.fixture
def request_for(merchant_account):
    """(method, path, body) for each endpoint, against fresh data."""

    def build(endpoint: str):
        card = IssuedGiftCardFactory()
        stored = GiftCardFactory()
        return {
            "store": ("post", "/gift-cards", {"number": card.number, "pin": card.pin}),
            "list": ("get", "/gift-cards", None),
            "get": ("get", f"/gift-cards/{stored.id}", None),
            "delete": ("delete", f"/gift-cards/{stored.id}", None),
            # By number and PIN: which stored cards an embed token may name is tests/test_embed_buyer_access.py's.
            "balances": ("post", "/gift-cards/balances", {"items": [{"number": card.number, "pin": card.pin}]}),
            "buyer": ("get", "/buyers/gift-cards", {"buyer_id": str(stored.buyer_id)}),
        }[endpoint]

    return build


SCOPE_MATRIX = [
    ("store", ["gift-cards.write"], 201),
    ("store", ["*.write"], 201),
    ("store", ["embed"], 201),
    ("store", ["gift-cards.read"], 403),
    ("store", ["buyers.write"], 403),
    ("list", ["gift-cards.read"], 200),
    ("list", ["*.read"], 200),
    ("list", ["gift-cards.write"], 403),
    ("list", ["embed"], 403),
    ("get", ["gift-cards.read"], 200),
    ("get", ["embed"], 403),
    ("get", ["buyers.read"], 403),
    ("delete", ["gift-cards.write"], 204),
    ("delete", ["gift-cards.read"], 403),
    ("delete", ["embed"], 403),
    ("balances", ["gift-cards.read"], 200),
    ("balances", ["*.read"], 200),
    ("balances", ["embed"], 200),
    ("balances", ["gift-cards.write"], 403),
    ("balances", ["transactions.read"], 403),
    ("buyer", ["gift-cards.read"], 200),
    ("buyer", ["embed"], 403),
    ("buyer", ["buyers.read"], 403),
]


@pytest.mark.parametrize(
    ("endpoint", "scopes", "status"), SCOPE_MATRIX, ids=[f"{e}-{'+'.join(s)}-{c}" for e, s, c in SCOPE_MATRIX]
)
def test_scope_matrix(api_client, request_for, endpoint, scopes, status):
    method, path, body = request_for(endpoint)
    client = api_client(scopes=scopes)

    kwargs = {"format": "json"} if method == "post" else {}
    response = getattr(client, method)(path, body, **kwargs)

    assert response.status_code == status, response.content
    if status == 403:
        assert response.json()["code"] == "forbidden"


@pytest.mark.parametrize("endpoint", ["store", "list", "get", "delete", "balances", "buyer"])
def test_no_token_is_401(anonymous_client, request_for, endpoint):
    method, path, body = request_for(endpoint)

    response = getattr(anonymous_client, method)(path, body, format="json")

    assert_error(response, 401)


# --- isolation between merchant accounts ------------------------------------------------------------------


def test_another_accounts_stored_cards_are_invisible(client, other_merchant_account):
    foreign = GiftCardFactory(merchant_account=other_merchant_account)

    assert client.get("/gift-cards").json()["items"] == []
    assert_error(client.get(f"/gift-cards/{foreign.id}"), 404)
    assert_error(client.delete(f"/gift-cards/{foreign.id}"), 404)
    assert client.get("/buyers/gift-cards", {"buyer_id": str(foreign.buyer_id)}).json() == {"items": []}
    assert GiftCard.objects.filter(pk=foreign.pk).exists()


# --- query counts -----------------------------------------------------------------------------------------


@pytest.fixture
def warm_reader(api_client, merchant_account, settings):
    """A client whose key, account and last-used mark are cached: what every request but the first sees."""
    settings.API_KEY_CACHE_SECONDS = 3600
    client = api_client(scopes=["gift-cards.read"])
    assert client.get("/gift-cards").status_code == 200
    return client


@pytest.mark.parametrize("rows", [1, 20])
def test_list_is_one_query_whatever_the_page_size(warm_reader, django_assert_num_queries, rows):
    GiftCardFactory.create_batch(rows)

    with django_assert_num_queries(1):
        response = warm_reader.get("/gift-cards", {"limit": 20})

    assert len(response.json()["items"]) == rows


def test_detail_is_one_query(warm_reader, django_assert_num_queries):
    stored = GiftCardFactory()

    with django_assert_num_queries(1):
        response = warm_reader.get(f"/gift-cards/{stored.id}")

    assert response.status_code == 200


@pytest.mark.parametrize("rows", [1, 10])
def test_buyer_gift_cards_is_one_query_whatever_the_count(warm_reader, django_assert_num_queries, rows):
    buyer = BuyerFactory()
    GiftCardFactory.create_batch(rows, buyer=buyer)

    with django_assert_num_queries(1):
        response = warm_reader.get("/buyers/gift-cards", {"buyer_id": str(buyer.id)})

    assert len(response.json()["items"]) == rows


@pytest.mark.parametrize("rows", [1, 10])
def test_balances_of_stored_cards_is_one_query_whatever_the_count(warm_reader, django_assert_num_queries, rows):
    stored = GiftCardFactory.create_batch(rows)

    with django_assert_num_queries(1):
        response = warm_reader.post(
            "/gift-cards/balances", {"items": [{"id": str(card.id)} for card in stored]}, format="json"
        )

    assert len(response.json()["items"]) == rows
