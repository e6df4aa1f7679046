"""The transactions API: create over HTTP (reads and updates: test_api_reads.py; capture, void, cancel, refunds and
access: test_api_actions.py)."""

import json
import logging
import re
import uuid

import pytest
from django.db import connection
from gr4vy import models as sdk_models
from gr4vy.utils import unmarshal_json

from buyers.tests.factories import BuyerFactory
from payments.rest.models import IdempotencyRecord
from payments.tests.assertions import assert_error
from payments.vault.models import VaultedCard
from transactions.models import Transaction
from transactions.tests.conftest import CARD

pytestmark = pytest.mark.django_db

# Reference `Transaction` required fields (the SDK raises when one is missing).
REQUIRED = {
    "id",
    "reconciliation_id",
    "merchant_account_id",
    "currency",
    "amount",
    "status",
    "authorized_amount",
    "captured_amount",
    "refunded_amount",
    "settled_amount",
    "settled",
    "intent",
    "gift_card_redemptions",
    "created_at",
    "updated_at",
    "disputed",
    "payment_source",
    "merchant_initiated",
    "is_subsequent_payment",
    "intent_outcome",
    "multi_tender",
    "account_funding_transaction",
}
# What the SDK always sends with `transactions.create`.
SDK_DEFAULTS = {
    "store": False,
    "is_subsequent_payment": False,
    "merchant_initiated": False,
    "async_capture": False,
    "account_funding_transaction": False,
    "allow_partial_authorization": False,
}


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def body(amount: int = 1299, **fields) -> dict:
    return {"amount": amount, "currency": "USD", "payment_method": dict(CARD), **SDK_DEFAULTS, **fields}


def post(client, path: str, payload=None, **headers):
    return client.post(path, payload, format="json", **headers)


def create(client, **fields) -> dict:
    response = post(client, "/transactions", body(**fields))
    assert response.status_code == 201, response.content
    return response.json()


TIMESTAMP_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}[ T][\d:.]+([+-]\d{2}:?\d{2}|Z)?$")
# A value that is nothing but a random id or a digest in hex (a UUID, with or without its dashes), with a letter in it
# (digits alone could be card data): in about one suite in a hundred, one of the dozens stored spelled a 4-digit
# security code somewhere in its 32 digits.
HEX_IDENTIFIER = re.compile(
    r"^(?=[\d-]*[a-f])(?:[\da-f]{8}-?[\da-f]{4}-?[\da-f]{4}-?[\da-f]{4}-?[\da-f]{12}|[\da-f]{32,})$", re.I
)


def all_stored_text() -> str:
    """Every text and number value of every table: the haystack for card data that must not be there.

    Timestamps and hex identifiers are left out: their digits can spell any 4 digits, a security code included.
    """
    chunks = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608 - names from introspection
            for row in cursor.fetchall():
                chunks.extend(
                    str(value)
                    for value in row
                    if isinstance(value, str | int | bytes | memoryview) and not _random_digits(str(value))
                )
    return "\n".join(chunks)


def _random_digits(text: str) -> bool:
    return bool(TIMESTAMP_TEXT.match(text) or HEX_IDENTIFIER.match(text))


# --- create ----------------------------------------------------------------------------------------------


def test_create_authorizes_a_card_and_answers_like_upstream(client):
    response = post(client, "/transactions", body(country="US", external_identifier="order-1", metadata={"k": "v"}))

    assert response.status_code == 201
    payload = response.json()
    assert set(payload) >= REQUIRED
    txn = Transaction.objects.get()
    assert payload["id"] == str(txn.pk)
    assert {key: payload[key] for key in ("type", "status", "amount", "authorized_amount", "captured_amount")} == {
        "type": "transaction",
        "status": "authorization_succeeded",
        "amount": 1299,
        "authorized_amount": 1299,
        "captured_amount": 0,
    }
    assert payload["payment_method"] | {"fingerprint": None} == {
        "type": "payment-method",
        "method": "card",
        "mode": "card",
        "scheme": "visa",
        "label": "1111",
        "expiration_date": "12/39",
        "fingerprint": None,
        "details": {"bin": "411111", "card_type": None, "card_issuer_name": None},
        "id": None,
        "approval_url": None,
        "country": None,
        "currency": None,
        "external_identifier": None,
    }
    assert payload["payment_method"]["fingerprint"] == txn.card_fingerprint
    assert (payload["country"], payload["external_identifier"], payload["metadata"]) == ("US", "order-1", {"k": "v"})
    assert (payload["intent_outcome"], payload["multi_tender"], payload["raw_response_code"]) == (
        "succeeded",
        False,
        "00",
    )
    parsed = unmarshal_json(response.content.decode(), sdk_models.Transaction)
    assert parsed.status == "authorization_succeeded"


def test_a_declined_card_is_a_201_with_the_decline(client):
    response = post(client, "/transactions", body(payment_method={**CARD, "number": "4000000000000002"}))

    assert response.status_code == 201
    payload = response.json()
    assert (payload["status"], payload["error_code"], payload["raw_response_code"], payload["intent_outcome"]) == (
        "authorization_declined",
        "issuer_decline",
        "05",
        "failed",
    )
    assert payload["raw_response_description"] == "Do not honor"


def test_no_card_number_or_security_code_is_kept_answered_or_logged(client, caplog):
    amex = {"method": "card", "number": "378282246310005", "expiration_date": "11/38", "security_code": "8642"}
    caplog.set_level(logging.DEBUG)

    created = post(client, "/transactions", body(payment_method=amex))
    transaction_id = created.json()["id"]
    responses = [
        created,
        client.get(f"/transactions/{transaction_id}"),
        client.get("/transactions"),
        post(client, f"/transactions/{transaction_id}/capture", {}),
        post(client, f"/transactions/{transaction_id}/refunds", {"amount": 1}),
    ]

    assert [response.status_code for response in responses] == [201, 200, 200, 200, 201]
    for secret in ("378282246310005", "8642"):
        assert all(secret not in response.content.decode() for response in responses)
        assert secret not in caplog.text
        assert secret not in all_stored_text()
    assert VaultedCard.objects.get().last4 == "0005"


def test_intent_capture_creates_a_captured_transaction(client):
    payload = create(client, intent="capture")

    assert (payload["status"], payload["captured_amount"], payload["intent"]) == ("capture_succeeded", 1299, "capture")


def test_a_buyer_is_linked_by_id_or_external_identifier(client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account, external_identifier="b-1", display_name="Ada")

    by_id = create(client, buyer_id=str(buyer.pk))
    by_external = create(client, buyer_external_identifier="b-1")

    for payload in (by_id, by_external):
        assert payload["buyer"]["id"] == str(buyer.pk)
        assert (payload["buyer"]["type"], payload["buyer"]["display_name"]) == ("buyer", "Ada")


def test_an_inline_buyer_lives_only_on_the_transaction(client):
    payload = create(client, buyer={"display_name": "Guest", "external_identifier": "g-1"})

    assert payload["buyer"] == {
        "type": "buyer",
        "id": None,
        "display_name": "Guest",
        "external_identifier": "g-1",
        "billing_details": None,
        "account_number": None,
    }


def test_order_details_are_validated_and_echoed(client):
    cart = [{"name": "Tea", "quantity": 2, "unit_amount": 600, "sku": "tea-1"}]
    shipping = {"first_name": "Ada", "address": {"city": "London", "country": "GB"}}

    payload = create(client, cart_items=cart, buyer={"display_name": "Ada", "shipping_details": shipping})

    assert [(item["name"], item["quantity"], item["sku"]) for item in payload["cart_items"]] == [("Tea", 2, "tea-1")]
    assert payload["shipping_details"] == {
        "type": "shipping-details",
        "id": None,
        "buyer_id": None,
        "first_name": "Ada",
        "last_name": None,
        "email_address": None,
        "phone_number": None,
        "address": {"city": "London", "country": "GB"},
    }
    assert "shipping_details" not in payload["buyer"]


INVALID_CREATE = [
    ({"currency": "USD", "payment_method": CARD}, "/amount"),
    (body(amount=-1), "/amount"),
    (body(amount=100_000_000), "/amount"),
    (body(amount="1299"), "/amount"),
    (body(amount=12.5), "/amount"),
    (body(currency="usd"), "/currency"),
    (body(currency="XXY"), "/currency"),
    (body(country="ZZ"), "/country"),
    (body(intent="sale"), "/intent"),
    (body(store=True), "/store"),
    (body(is_amount_estimated=False), "/is_amount_estimated"),
    (body(merchant_initiated="false"), "/merchant_initiated"),
    (body(payment_source="pos"), "/payment_source"),
    (body(cart_items=[{"name": "Tea", "quantity": 0, "unit_amount": 1}]), "/cart_items/0/quantity"),
    (body(buyer={"shipping_details": {"phone_number": "123"}}), "/buyer/shipping_details/phone_number"),
    (body(metadata={"k": 1}), "/metadata/k"),
    (body(metadata={f"k{n}": "v" for n in range(21)}), "/metadata"),
    (body(buyer_id="not-a-uuid"), "/buyer_id"),
    (body(buyer_id=str(uuid.uuid4())), "/buyer_id"),
    (body(buyer_external_identifier="nobody"), "/buyer_external_identifier"),
    (body(buyer_id=str(uuid.uuid4()), buyer_external_identifier="b"), "/buyer_external_identifier"),
    (body(external_identifier=""), "/external_identifier"),
    (body(surprise=True), "/surprise"),
    (body(payment_method=None), "/payment_method"),
    (body(payment_method="card"), "/payment_method"),
    (body(payment_method={"method": "klarna"}), "/payment_method/method"),
    (body(payment_method={"method": "paypal"}), "/payment_method/redirect_url"),
    (body(payment_method={"method": ["card"]}), "/payment_method/method"),
    (body(payment_method={"method": {"card": 1}}), "/payment_method/method"),
    (body(payment_method={}), "/payment_method/method"),
    (body(payment_method={**CARD, "number": "4111111111111112"}), "/payment_method/number"),
    (body(payment_method={**CARD, "number": 4111111111111111}), "/payment_method/number"),
    (body(payment_method={**CARD, "number": "41111"}), "/payment_method/number"),
    (body(payment_method={**CARD, "expiration_date": "13/30"}), "/payment_method/expiration_date"),
    (body(payment_method={**CARD, "expiration_date": "01/20"}), "/payment_method/expiration_date"),
    (body(payment_method={**CARD, "security_code": "12"}), "/payment_method/security_code"),
    (body(payment_method={**CARD, "security_code": "1234"}), "/payment_method/security_code"),
    (body(payment_method={**CARD, "pan": "4111111111111111"}), "/payment_method/pan"),
    (body(payment_method={"method": "checkout-session", "id": "nope"}), "/payment_method/id"),
    (body(gift_cards=[{"amount": 100}]), "/gift_cards/0"),
    (body(gift_cards=[{"id": str(uuid.uuid4()), "amount": 0}]), "/gift_cards/0/amount"),
    (body(gift_cards=[{"number": "123", "pin": "1", "amount": 1}]), "/gift_cards/0/number"),
    (body(gift_cards=[{"id": str(uuid.uuid4()), "amount": 1}] * 11), "/gift_cards"),
]


@pytest.mark.parametrize(
    ("payload", "pointer"), INVALID_CREATE, ids=[f"{pointer}-{n}" for n, (_, pointer) in enumerate(INVALID_CREATE)]
)
def test_invalid_create_is_a_400_naming_the_field_and_writes_nothing(client, payload, pointer):
    response = post(client, "/transactions", payload, HTTP_IDEMPOTENCY_KEY="k-1")

    body_ = assert_error(response, 400, pointer)
    assert "4111111111111111" not in json.dumps(body_)
    assert not Transaction.objects.exists()
    assert not VaultedCard.objects.exists()
    assert not IdempotencyRecord.objects.exists()


def test_malformed_json_is_a_400(client):
    response = client.post("/transactions", "{not json", content_type="application/json")

    assert_error(response, 400)
    assert not Transaction.objects.exists()
