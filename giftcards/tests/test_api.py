"""The gift cards API: shapes, storing, bad input and embed tokens (list, get, delete and balances:
test_api_reads.py; the buyer's cards, scopes, isolation and query counts: test_api_access.py)."""

import re
import uuid

import pytest

from buyers.tests.factories import BuyerFactory
from giftcards.models import GiftCard, IssuedGiftCard
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.tests.assertions import assert_error

# A well-formed id no row has: a parameter fixed at import, so every test worker collects the same test ids.
UNKNOWN_ID = "00000000-0000-4000-8000-00000000dead"

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
    "message": "Request failed validation: The gift card number or PIN is not valid.",
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

    assert assert_error(right_pin, 400, "/")["message"] == f"Request failed validation: {message}"
    assert wrong_pin.json() == INVALID
    assert not GiftCard.objects.exists()


def test_another_accounts_card_is_an_unknown_number(client, other_merchant_account):
    foreign = IssuedGiftCardFactory(merchant_account=other_merchant_account)

    response = client.post("/gift-cards", {"number": foreign.number, "pin": foreign.pin}, format="json")

    assert response.json() == INVALID


@pytest.mark.parametrize(
    ("buyer_field", "value"),
    [("buyer_id", UNKNOWN_ID), ("buyer_external_identifier", "nobody")],
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
