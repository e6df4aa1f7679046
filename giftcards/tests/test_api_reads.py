"""The gift cards API: list, get and delete stored cards, and balances."""

import uuid

import pytest

from buyers.tests.factories import BuyerFactory
from giftcards.models import GiftCard, IssuedGiftCard
from giftcards.services import issued_card_redeem
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory
from giftcards.tests.test_api import GIFT_CARD_KEYS, NUMBER, SUMMARY_KEYS, TIMESTAMP, other_number
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["gift-cards.read", "gift-cards.write"])


@pytest.fixture
def card(merchant_account):
    return IssuedGiftCardFactory(amount=5000, currency="USD")


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
