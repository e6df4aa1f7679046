"""The gift cards API: shapes, storing, balances, the buyer's cards, bad input, scopes, isolation and
query counts."""

import re
import uuid

import pytest

from buyers.tests.factories import BuyerFactory
from giftcards.models import GiftCard, IssuedGiftCard
from giftcards.services import issued_card_redeem
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$")
GIFT_CARD_KEYS = {
    "type",
    "id",
    "merchant_account_id",
    "gift_card_service",
    "bin",
    "sub_bin",
    "last4",
    "expiration_date",
    "buyer",
    "created_at",
    "updated_at",
    "last_used_at",
    "usage_count",
    "cit_last_used_at",
    "cit_usage_count",
}
SUMMARY_KEYS = {
    "type",
    "id",
    "merchant_account_id",
    "bin",
    "sub_bin",
    "last4",
    "currency",
    "expiration_date",
    "balance",
    "balance_error_code",
    "balance_raw_error_code",
    "balance_raw_error_message",
    "last_used_at",
    "usage_count",
    "cit_last_used_at",
    "cit_usage_count",
}
INVALID = {
    "type": "error",
    "code": "bad_request",
    "status": 400,
    "message": "The gift card number or PIN is not valid.",
    "details": [
        {
            "location": "body",
            "pointer": "/",
            "message": "The gift card number or PIN is not valid.",
            "type": "invalid_gift_card",
        }
    ],
}


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["gift-cards.read", "gift-cards.write"])


@pytest.fixture
def card(merchant_account):
    return IssuedGiftCardFactory(amount=5000, currency="USD")


def other_number(number: str) -> str:
    """A number with the same bin, sub_bin and last 4 that no card has (one hidden digit changed)."""
    hidden = number[9]
    return number[:9] + str((int(hidden) + 1) % 10) + number[10:]


# --- POST /gift-cards ------------------------------------------------------------------------------


def test_store_returns_201_with_the_full_gift_card(client, card):
    buyer = BuyerFactory()

    response = client.post(
        "/gift-cards", {"number": card.number, "pin": card.pin, "buyer_id": str(buyer.id)}, format="json"
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == GIFT_CARD_KEYS
    stored = GiftCard.objects.get()
    assert body["type"] == "gift-card"
    assert body["id"] == str(stored.id)
    assert body["merchant_account_id"] == "default"
    assert body["gift_card_service"] == {
        "type": "gift-card-service",
        "id": str(card.service_id),
        "gift_card_service_definition_id": "mock-gift-card",
        "display_name": "Gift cards",
    }
    assert (body["bin"], body["sub_bin"], body["last4"]) == (card.number[:6], card.number[6:9], card.number[-4:])
    assert body["buyer"]["id"] == str(buyer.id)
    assert body["buyer"]["type"] == "buyer"
    assert body["expiration_date"] is None
    assert (body["usage_count"], body["cit_usage_count"], body["last_used_at"]) == (0, 0, None)
    assert TIMESTAMP.match(body["created_at"])
    assert TIMESTAMP.match(body["updated_at"])
    assert stored.buyer == buyer
    assert stored.issued_card_id == card.id


def test_store_by_buyer_external_identifier(client, card):
    buyer = BuyerFactory(external_identifier="shopper-7")

    response = client.post(
        "/gift-cards",
        {"number": card.number, "pin": card.pin, "buyer_external_identifier": "shopper-7"},
        format="json",
    )

    assert response.status_code == 201
    assert response.json()["buyer"]["id"] == str(buyer.id)


def test_store_without_a_buyer(client, card):
    response = client.post("/gift-cards", {"number": card.number, "pin": card.pin, "buyer_id": None}, format="json")

    assert response.status_code == 201
    assert response.json()["buyer"] is None


def test_store_shows_the_expiration_date(client, merchant_account):
    card = IssuedGiftCardFactory()
    IssuedGiftCard.objects.filter(pk=card.pk).update(expires_at="2099-12-31T23:59:59.999999+00:00")

    response = client.post("/gift-cards", {"number": card.number, "pin": card.pin}, format="json")

    assert response.json()["expiration_date"] == "2099-12-31T23:59:59.999999+00:00"


def test_storing_the_same_card_again_returns_the_first_record(client, card):
    buyer = BuyerFactory()
    payload = {"number": card.number, "pin": card.pin, "buyer_id": str(buyer.id)}

    first = client.post("/gift-cards", payload, format="json")
    second = client.post("/gift-cards", payload, format="json")

    assert second.status_code == 201
    assert second.json()["id"] == first.json()["id"]
    assert GiftCard.objects.count() == 1


def test_unknown_number_and_wrong_pin_get_byte_identical_answers(client, card):
    wrong_number = client.post("/gift-cards", {"number": other_number(card.number), "pin": card.pin}, format="json")
    wrong_pin = client.post("/gift-cards", {"number": card.number, "pin": card.pin + "1"}, format="json")

    assert wrong_number.status_code == wrong_pin.status_code == 400
    assert wrong_number.content == wrong_pin.content
    assert wrong_number.json() == INVALID
    assert not GiftCard.objects.exists()


@pytest.mark.parametrize(
    ("state", "message"),
    [({"expired": True}, "The gift card has expired."), ({"status": "inactive"}, "The gift card is not active.")],
    ids=["expired", "inactive"],
)
def test_an_unusable_card_says_so_only_with_the_right_pin(client, merchant_account, state, message):
    card = IssuedGiftCardFactory(**state)

    right_pin = client.post("/gift-cards", {"number": card.number, "pin": card.pin}, format="json")
    wrong_pin = client.post("/gift-cards", {"number": card.number, "pin": "0"}, format="json")

    assert assert_error(right_pin, 400, "/")["message"] == message
    assert wrong_pin.json() == INVALID
    assert not GiftCard.objects.exists()


def test_another_accounts_card_is_an_unknown_number(client, other_merchant_account):
    foreign = IssuedGiftCardFactory(merchant_account=other_merchant_account)

    response = client.post("/gift-cards", {"number": foreign.number, "pin": foreign.pin}, format="json")

    assert response.json() == INVALID


@pytest.mark.parametrize(
    ("buyer_field", "value"),
    [("buyer_id", str(uuid.uuid4())), ("buyer_external_identifier", "nobody")],
)
def test_an_unknown_buyer_is_400_and_checks_nothing(client, card, monkeypatch, buyer_field, value):
    checks = []
    monkeypatch.setattr("giftcards.services.issued_card_check", lambda **kwargs: checks.append(kwargs))

    response = client.post("/gift-cards", {"number": card.number, "pin": card.pin, buyer_field: value}, format="json")

    assert_error(response, 400, f"/{buyer_field}")
    assert checks == []


def test_another_accounts_buyer_is_unknown(client, card, other_merchant_account):
    foreign = BuyerFactory(merchant_account=other_merchant_account)

    response = client.post(
        "/gift-cards", {"number": card.number, "pin": card.pin, "buyer_id": str(foreign.id)}, format="json"
    )

    assert_error(response, 400, "/buyer_id")


NUMBER = "6035710000000000001"
STORE_BAD_INPUT = [
    ({"pin": "1234"}, "/number"),
    ({"number": "603571000000001", "pin": "1234"}, "/number"),
    ({"number": "60357100000000000012", "pin": "1234"}, "/number"),
    ({"number": "60357100000000a0001", "pin": "1234"}, "/number"),
    ({"number": "6035 7100 0000 0000", "pin": "1234"}, "/number"),
    ({"number": "٦٠٣٥٧١٠٠٠٠٠٠٠٠٠٠٠٠١", "pin": "1234"}, "/number"),
    ({"number": 6035710000000000001, "pin": "1234"}, "/number"),
    ({"number": None, "pin": "1234"}, "/number"),
    ({"number": NUMBER}, "/pin"),
    ({"number": NUMBER, "pin": ""}, "/pin"),
    ({"number": NUMBER, "pin": 1234}, "/pin"),
    ({"number": NUMBER, "pin": "1" * 65}, "/pin"),
    ({"number": NUMBER, "pin": "1", "buyer_id": "not-a-uuid"}, "/buyer_id"),
    ({"number": NUMBER, "pin": "1", "buyer_external_identifier": ""}, "/buyer_external_identifier"),
    ({"number": NUMBER, "pin": "1", "buyer_external_identifier": "x" * 201}, "/buyer_external_identifier"),
    (
        {"number": NUMBER, "pin": "1", "buyer_id": str(uuid.uuid4()), "buyer_external_identifier": "b"},
        "/buyer_external_identifier",
    ),
    ({"number": NUMBER, "pin": "1", "amount": 100}, "/amount"),
]
STORE_BAD_INPUT_IDS = [
    "missing-number",
    "number-15-digits",
    "number-20-digits",
    "number-letter",
    "number-spaces",
    "number-non-ascii-digits",
    "number-as-json-number",
    "number-null",
    "missing-pin",
    "empty-pin",
    "pin-as-json-number",
    "pin-too-long",
    "buyer-id-not-uuid",
    "empty-external-identifier",
    "external-identifier-too-long",
    "both-buyer-fields",
    "unknown-field",
]


@pytest.mark.parametrize(("payload", "pointer"), STORE_BAD_INPUT, ids=STORE_BAD_INPUT_IDS)
def test_bad_input_on_store_is_400_and_writes_nothing(client, monkeypatch, payload, pointer):
    failures = []
    monkeypatch.setattr("giftcards.lockout.record_pin_failure", lambda *args, **kwargs: failures.append(args))

    response = client.post("/gift-cards", payload, format="json")

    body = assert_error(response, 400, pointer)
    assert "6035710000000000001" not in response.content.decode()
    assert body["details"][0]["location"] == "body"
    assert not GiftCard.objects.exists()
    assert failures == []


@pytest.mark.parametrize("body", ["not json", "[]", '"a string"'], ids=["malformed", "array", "string"])
def test_store_with_a_body_that_is_not_an_object_is_400(client, body):
    response = client.generic("POST", "/gift-cards", body, content_type="application/json")

    assert_error(response, 400)


# --- embed tokens ----------------------------------------------------------------------------------


def test_an_embed_token_stores_for_the_buyer_it_names(api_client, card):
    buyer = BuyerFactory()
    embed = api_client(scopes=["embed"], embed={"amount": 100, "currency": "USD", "buyer_id": str(buyer.id)})

    response = embed.post(
        "/gift-cards", {"number": card.number, "pin": card.pin, "buyer_id": str(buyer.id)}, format="json"
    )

    assert response.status_code == 201


@pytest.mark.parametrize("pinned", [True, False], ids=["pinned-to-another-buyer", "not-pinned"])
def test_an_embed_token_cannot_store_for_another_buyer(api_client, card, pinned):
    buyer, other = BuyerFactory(), BuyerFactory()
    embed = {"amount": 100, "currency": "USD", **({"buyer_id": str(other.id)} if pinned else {})}
    client = api_client(scopes=["embed"], embed=embed)

    response = client.post(
        "/gift-cards", {"number": card.number, "pin": card.pin, "buyer_id": str(buyer.id)}, format="json"
    )

    assert_error(response, 403)
    assert not GiftCard.objects.exists()


# --- GET /gift-cards, GET /gift-cards/{id}, DELETE ---------------------------------------------------


def test_list_returns_the_accounts_stored_cards_newest_first(client, merchant_account):
    first, second = GiftCardFactory(), GiftCardFactory()

    response = client.get("/gift-cards")

    assert response.status_code == 200
    body = response.json()
    assert [item["id"] for item in body["items"]] == [str(second.id), str(first.id)]
    assert set(body["items"][0]) == GIFT_CARD_KEYS
    assert (body["limit"], body["next_cursor"], body["previous_cursor"]) == (20, None, None)


def test_list_pages_through_every_card(client, merchant_account):
    stored = GiftCardFactory.create_batch(5)

    seen, cursor = [], None
    while True:
        body = client.get("/gift-cards", {"limit": 2, **({"cursor": cursor} if cursor else {})}).json()
        seen += [item["id"] for item in body["items"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break

    assert sorted(seen) == sorted(str(card.id) for card in stored)


def test_list_filters_by_buyer(client, merchant_account):
    mine = GiftCardFactory(buyer=BuyerFactory(external_identifier="me"))
    GiftCardFactory()

    by_id = client.get("/gift-cards", {"buyer_id": str(mine.buyer_id)}).json()["items"]
    by_external = client.get("/gift-cards", {"buyer_external_identifier": "me"}).json()["items"]

    assert [item["id"] for item in by_id] == [str(mine.id)]
    assert [item["id"] for item in by_external] == [str(mine.id)]


def test_list_with_a_malformed_buyer_id_is_400_naming_it(client):
    response = client.get("/gift-cards", {"buyer_id": "nope"})

    body = assert_error(response, 400, "/buyer_id")
    assert body["details"][0]["location"] == "query"


def test_get_returns_the_gift_card(client, merchant_account):
    stored = GiftCardFactory()

    response = client.get(f"/gift-cards/{stored.id}")

    assert response.status_code == 200
    assert response.json()["id"] == str(stored.id)
    assert response.json()["buyer"]["id"] == str(stored.buyer_id)


def test_delete_forgets_the_stored_card_but_not_the_money(client, merchant_account):
    stored = GiftCardFactory()

    response = client.delete(f"/gift-cards/{stored.id}")

    assert response.status_code == 204
    assert response.content == b""
    assert not GiftCard.objects.exists()
    assert IssuedGiftCard.objects.get(pk=stored.issued_card_id).balance == 5000
    assert client.get(f"/gift-cards/{stored.id}").status_code == 404


@pytest.mark.parametrize("method", ["get", "delete"])
@pytest.mark.parametrize("gift_card_id", [str(uuid.uuid4()), "not-a-uuid"], ids=["unknown", "malformed"])
def test_missing_gift_card_is_404(client, method, gift_card_id):
    response = getattr(client, method)(f"/gift-cards/{gift_card_id}")

    assert_error(response, 404)


@pytest.mark.parametrize("method", ["put", "patch"])
def test_stored_cards_cannot_be_changed(client, merchant_account, method):
    stored = GiftCardFactory()

    response = getattr(client, method)(f"/gift-cards/{stored.id}", {}, format="json")

    assert_error(response, 405)


# --- POST /gift-cards/balances -----------------------------------------------------------------------


def test_balances_answers_each_item_in_order(client, merchant_account):
    checked = IssuedGiftCardFactory(amount=1200, currency="EUR")
    stored = GiftCardFactory()
    issued_card_redeem(card=stored.issued_card, amount=100, reference="tx-1")

    response = client.post(
        "/gift-cards/balances",
        {"items": [{"id": str(stored.id)}, {"number": checked.number, "pin": checked.pin}]},
        format="json",
    )

    assert response.status_code == 200
    first, second = response.json()["items"]
    assert set(first) == set(second) == SUMMARY_KEYS
    assert (first["id"], first["balance"], first["currency"], first["usage_count"]) == (
        str(stored.id),
        4900,
        "USD",
        1,
    )
    assert TIMESTAMP.match(first["last_used_at"])
    assert (second["id"], second["balance"], second["currency"], second["balance_error_code"]) == (
        None,
        1200,
        "EUR",
        None,
    )
    assert (second["bin"], second["sub_bin"], second["last4"]) == (
        checked.number[:6],
        checked.number[6:9],
        checked.number[-4:],
    )
    assert second["type"] == "gift-card"
    assert second["merchant_account_id"] == "default"


def test_balances_unknown_number_and_wrong_pin_get_byte_identical_answers(client, card):
    wrong_number = client.post(
        "/gift-cards/balances", {"items": [{"number": other_number(card.number), "pin": card.pin}]}, format="json"
    )
    wrong_pin = client.post("/gift-cards/balances", {"items": [{"number": card.number, "pin": "0"}]}, format="json")

    assert wrong_number.status_code == wrong_pin.status_code == 200
    assert wrong_number.content == wrong_pin.content
    item = wrong_pin.json()["items"][0]
    assert (item["balance"], item["balance_error_code"], item["currency"]) == (None, "invalid_gift_card", None)


@pytest.mark.parametrize(
    ("state", "error_code"),
    [({"expired": True}, "expired_card"), ({"status": "inactive"}, "inactive_card")],
    ids=["expired", "inactive"],
)
def test_balances_report_unusable_cards_only_after_the_pin_matched(client, merchant_account, state, error_code):
    card = IssuedGiftCardFactory(**state)
    stored = GiftCardFactory(issued_card=card)

    response = client.post(
        "/gift-cards/balances",
        {
            "items": [
                {"number": card.number, "pin": card.pin},
                {"number": card.number, "pin": "0"},
                {"id": str(stored.id)},
            ]
        },
        format="json",
    )

    codes = [(item["balance_error_code"], item["balance"]) for item in response.json()["items"]]
    assert codes == [(error_code, None), ("invalid_gift_card", None), (error_code, None)]


def test_balances_with_no_items_is_an_empty_answer(client):
    response = client.post("/gift-cards/balances", {"items": []}, format="json")

    assert response.status_code == 200
    assert response.json() == {"items": []}


@pytest.mark.parametrize("foreign", [False, True], ids=["unknown", "another-account"])
def test_balances_naming_a_missing_stored_card_is_400_and_checks_nothing(
    client, card, other_merchant_account, monkeypatch, foreign
):
    failures = []
    monkeypatch.setattr("giftcards.lockout.record_pin_failure", lambda *args, **kwargs: failures.append(args))
    missing = GiftCardFactory(merchant_account=other_merchant_account).id if foreign else uuid.uuid4()

    response = client.post(
        "/gift-cards/balances",
        {"items": [{"number": card.number, "pin": "wrong"}, {"id": str(missing)}]},
        format="json",
    )

    assert_error(response, 400, "/items/1/id")
    assert failures == []


BALANCE_ITEM = {"number": NUMBER, "pin": "1234"}
BALANCES_BAD_INPUT = [
    ({}, "/items"),
    ({"items": None}, "/items"),
    ({"items": "x"}, "/items"),
    ({"items": [BALANCE_ITEM] * 11}, "/items"),
    ({"items": ["x"]}, "/items/0"),
    ({"items": [{"number": NUMBER}]}, "/items/0/pin"),
    ({"items": [{"pin": "1234"}]}, "/items/0/number"),
    ({"items": [{}]}, "/items/0/number"),
    ({"items": [BALANCE_ITEM, {"number": "123", "pin": "1"}]}, "/items/1/number"),
    ({"items": [{"number": "60357100000000000x1", "pin": "1"}]}, "/items/0/number"),
    ({"items": [{"number": NUMBER, "pin": ""}]}, "/items/0/pin"),
    ({"items": [{"id": "nope"}]}, "/items/0/id"),
    ({"items": [{"id": str(uuid.uuid4()), "pin": "1"}]}, "/items/0/pin"),
    ({"items": [{**BALANCE_ITEM, "amount": 1}]}, "/items/0/amount"),
    ({"items": [BALANCE_ITEM], "extra": True}, "/extra"),
]
BALANCES_BAD_INPUT_IDS = [
    "missing-items",
    "null-items",
    "items-not-a-list",
    "eleven-items",
    "item-not-an-object",
    "missing-pin",
    "missing-number",
    "empty-item",
    "second-item-short-number",
    "number-letter",
    "empty-pin",
    "id-not-uuid",
    "id-with-pin",
    "unknown-item-field",
    "unknown-field",
]


@pytest.mark.parametrize(("payload", "pointer"), BALANCES_BAD_INPUT, ids=BALANCES_BAD_INPUT_IDS)
def test_bad_input_on_balances_is_400_and_checks_nothing(client, monkeypatch, payload, pointer):
    failures = []
    monkeypatch.setattr("giftcards.lockout.record_pin_failure", lambda *args, **kwargs: failures.append(args))

    response = client.post("/gift-cards/balances", payload, format="json")

    assert_error(response, 400, pointer)
    assert NUMBER not in response.content.decode()
    assert failures == []


# --- GET /buyers/gift-cards ----------------------------------------------------------------------------


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
