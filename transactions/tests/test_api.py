"""The transactions API: create, read, update, capture, void, cancel and refunds over HTTP."""

import json
import logging
import re
import uuid

import pytest
from django.db import connection
from gr4vy import models as sdk_models
from gr4vy.utils import unmarshal_json

from buyers.tests.factories import BuyerFactory
from payments.models import IdempotencyRecord, VaultedCard
from payments.tests.assertions import assert_error
from transactions.models import Refund, Transaction
from transactions.tests.conftest import CARD
from transactions.tests.factories import RefundFactory, TransactionFactory

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


def all_stored_text() -> str:
    """Every text and number value of every table: the haystack for card data that must not be there.

    Timestamps are left out: their microseconds can spell any 4 digits, a security code included.
    """
    chunks = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608 - names from introspection
            for row in cursor.fetchall():
                chunks.extend(
                    str(value)
                    for value in row
                    if isinstance(value, str | int | bytes | memoryview) and not TIMESTAMP_TEXT.match(str(value))
                )
    return "\n".join(chunks)


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
    (body(payment_method={"method": "paypal"}), "/payment_method/method"),
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


# --- read, list, update ------------------------------------------------------------------------------------


def test_get_returns_the_transaction(client):
    created = create(client)

    response = client.get(f"/transactions/{created['id']}")

    assert response.status_code == 200
    assert response.json() == created


@pytest.mark.parametrize("transaction_id", [str(uuid.uuid4()), "not-a-uuid"])
def test_unknown_transactions_are_404(client, transaction_id):
    assert_error(client.get(f"/transactions/{transaction_id}"), 404)


def test_put_changes_external_identifier_and_replaces_metadata(client):
    created = create(client, external_identifier="a", metadata={"x": "1", "y": "2"})

    response = client.put(
        f"/transactions/{created['id']}", {"metadata": {"z": "3"}, "connection_options": None}, format="json"
    )

    assert response.status_code == 200
    assert (response.json()["external_identifier"], response.json()["metadata"]) == ("a", {"z": "3"})


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [
        ({"status": "capture_succeeded"}, "/status"),
        ({"captured_amount": 5}, "/captured_amount"),
        ({"metadata": ["a"]}, "/metadata"),
        ({"external_identifier": 5}, "/external_identifier"),
        ({"colour": "red"}, "/colour"),
    ],
    ids=["status", "amount", "metadata-list", "identifier-number", "unknown"],
)
def test_invalid_put_changes_nothing(client, payload, pointer):
    created = create(client, external_identifier="a")

    assert_error(client.put(f"/transactions/{created['id']}", payload, format="json"), 400, pointer)

    txn = Transaction.objects.get()
    assert (txn.external_identifier, txn.status, txn.captured_amount) == ("a", "authorization_succeeded", 0)


def test_list_pages_newest_first(client, merchant_account):
    made = [TransactionFactory(merchant_account=merchant_account, authorized=True) for _ in range(3)]

    response = client.get("/transactions", {"limit": 2})

    assert response.status_code == 200
    payload = response.json()
    assert [item["id"] for item in payload["items"]] == [str(made[2].pk), str(made[1].pk)]
    assert payload["next_cursor"]
    rest = client.get("/transactions", {"limit": 2, "cursor": payload["next_cursor"]}).json()
    assert ([item["id"] for item in rest["items"]], rest["next_cursor"]) == ([str(made[0].pk)], None)


@pytest.fixture
def listed(merchant_account):
    """Six transactions that differ in one filterable way each."""
    from datetime import timedelta

    from django.utils import timezone

    buyer = BuyerFactory(merchant_account=merchant_account, external_identifier="buyer-x", display_name="Grace Hopper")
    old = TransactionFactory(merchant_account=merchant_account, declined=True, amount=100, currency="EUR")
    Transaction.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(days=10), updated_at=timezone.now() - timedelta(days=10)
    )
    return {
        "old": old,
        "buyer": TransactionFactory(
            merchant_account=merchant_account, authorized=True, buyer=buyer, buyer_external_identifier="buyer-x"
        ),
        "refunded": RefundFactory(transaction__merchant_account=merchant_account, transaction__amount=5000).transaction,
        "tagged": TransactionFactory(
            merchant_account=merchant_account,
            authorized=True,
            metadata={"order": "7", "channel": "web"},
            external_identifier="ext-7",
            country="GB",
        ),
        "session": TransactionFactory(
            merchant_account=merchant_account, captured=True, amount=2500, checkout_session_id=uuid.uuid4()
        ),
        "voided": TransactionFactory(merchant_account=merchant_account, status="authorization_voided"),
    }


FILTERS = [
    ({"status": "authorization_declined"}, ["old"]),
    ({"status": ["capture_succeeded", "authorization_voided"]}, ["refunded", "session", "voided"]),
    ({"buyer_external_identifier": "buyer-x"}, ["buyer"]),
    ({"amount_eq": 100}, ["old"]),
    ({"amount_gte": 2500}, ["refunded", "session"]),
    ({"amount_lte": 1299}, ["old", "buyer", "tagged", "voided"]),
    ({"currency": "EUR"}, ["old"]),
    ({"currency": ["EUR", "USD"]}, ["old", "buyer", "refunded", "tagged", "session", "voided"]),
    ({"country": "GB"}, ["tagged"]),
    ({"external_identifier": "ext-7"}, ["tagged"]),
    ({"has_refunds": "true"}, ["refunded"]),
    ({"has_refunds": "false"}, ["old", "buyer", "tagged", "session", "voided"]),
    ({"metadata": '{"order": "7"}'}, ["tagged"]),
    ({"metadata": ['{"order": "7"}', '{"channel": "web"}']}, ["tagged"]),
    ({"metadata": '{"order": "7", "channel": "app"}'}, []),
    ({"search": "grace"}, ["buyer"]),
    ({"search": "ext-7"}, ["tagged"]),
    ({"payment_method_label": "1111", "status": "authorization_declined"}, ["old"]),
]


@pytest.mark.parametrize(("query", "expected"), FILTERS, ids=[json.dumps(q) for q, _ in FILTERS])
def test_list_filters(client, listed, query, expected):
    response = client.get("/transactions", query)

    assert response.status_code == 200, response.content
    assert {item["id"] for item in response.json()["items"]} == {str(listed[name].pk) for name in expected}


def test_list_filters_by_id_fields_and_dates(client, listed):
    from django.utils import timezone

    cases = {
        "buyer_id": (str(listed["buyer"].buyer_id), {"buyer"}),
        "checkout_session_id": (str(listed["session"].checkout_session_id), {"session"}),
        "created_at_lte": ((timezone.now() - timezone.timedelta(days=5)).isoformat(), {"old"}),
        "updated_at_gte": ((timezone.now() - timezone.timedelta(days=5)).isoformat(), set(listed) - {"old"}),
        "search": (str(listed["voided"].pk), {"voided"}),
    }
    for name, (value, expected) in cases.items():
        items = client.get("/transactions", {name: value}).json()["items"]
        assert {item["id"] for item in items} == {str(listed[key].pk) for key in expected}, name


@pytest.mark.parametrize(
    ("query", "pointer"),
    [
        ({"status": "refunded"}, "/status"),
        ({"amount_eq": "12.5"}, "/amount_eq"),
        ({"amount_gte": "-1"}, "/amount_gte"),
        ({"buyer_id": "nope"}, "/buyer_id"),
        ({"created_at_gte": "yesterday"}, "/created_at_gte"),
        ({"has_refunds": "maybe"}, "/has_refunds"),
        ({"metadata": "[1]"}, "/metadata"),
        ({"metadata": "{"}, "/metadata"),
        ({"currency": "usd"}, "/currency"),
        ({"limit": "0"}, "/limit"),
    ],
    ids=lambda value: json.dumps(value) if isinstance(value, dict) else value,
)
def test_invalid_filters_are_a_400_naming_the_parameter(client, query, pointer):
    payload = assert_error(client.get("/transactions", query), 400, pointer)
    assert payload["details"][0]["location"] == "query"


def test_list_and_detail_cost_a_fixed_number_of_queries(client, merchant_account, django_assert_num_queries):
    for _ in range(3):
        RefundFactory(transaction__merchant_account=merchant_account)
    client.get("/transactions")  # warms the key and account caches, as every later request finds them

    with django_assert_num_queries(2):  # the page, then the gift card redemptions of all its rows
        assert len(client.get("/transactions").json()["items"]) == 3
    for _ in range(5):
        TransactionFactory(merchant_account=merchant_account)
    with django_assert_num_queries(2):
        assert len(client.get("/transactions").json()["items"]) == 8
    transaction_id = Transaction.objects.first().pk
    with django_assert_num_queries(2):
        assert client.get(f"/transactions/{transaction_id}").status_code == 200
    with django_assert_num_queries(2):  # the transaction, then its refunds
        assert client.get(f"/transactions/{transaction_id}/refunds").status_code == 200


# --- capture, void, cancel ---------------------------------------------------------------------------------


def test_capture_answers_the_transaction_or_the_capture_wrapper(client):
    first = create(client)
    second = create(client)

    plain = post(client, f"/transactions/{first['id']}/capture", {"amount": 1000, "final": True})
    wrapped = post(client, f"/transactions/{second['id']}/capture", {}, HTTP_PREFER="resource=transaction-capture")

    assert plain.status_code == wrapped.status_code == 200
    assert (plain.json()["type"], plain.json()["captured_amount"]) == ("transaction", 1000)
    wrapper = wrapped.json()
    assert {key: wrapper[key] for key in ("type", "status", "code", "raw_response_code")} == {
        "type": "transaction-capture",
        "status": "succeeded",
        "code": None,
        "raw_response_code": "00",
    }
    assert (wrapper["transaction"]["status"], wrapper["transaction"]["captured_amount"]) == ("capture_succeeded", 1299)
    assert isinstance(
        unmarshal_json(wrapped.content.decode(), sdk_models.TransactionCapture), sdk_models.TransactionCapture
    )


def test_void_answers_the_transaction_or_the_void_wrapper(client):
    first = create(client)
    second = create(client)

    plain = client.post(f"/transactions/{first['id']}/void")
    wrapped = client.post(f"/transactions/{second['id']}/void", HTTP_PREFER="resource=transaction-void")

    assert (plain.status_code, plain.json()["status"]) == (200, "authorization_voided")
    assert (wrapped.json()["type"], wrapped.json()["status"]) == ("transaction-void", "succeeded")
    assert wrapped.json()["transaction"]["voided_at"]


def test_cancel_answers_the_cancel_wrapper_or_refuses_an_authorized_transaction(client, merchant_account):
    pending = TransactionFactory(merchant_account=merchant_account)
    authorized = create(client)

    canceled = client.post(f"/transactions/{pending.pk}/cancel")
    refused = client.post(f"/transactions/{authorized['id']}/cancel")

    assert canceled.status_code == 200
    assert (canceled.json()["type"], canceled.json()["status"]) == ("transaction-cancel", "succeeded")
    assert canceled.json()["transaction"]["canceled_at"]
    payload = assert_error(refused, 409)
    assert (
        payload["message"] == "This transaction cannot be canceled: it is authorized but not captured. Void it instead."
    )


def test_invalid_transitions_are_409s_that_change_nothing(client):
    created = create(client)
    post(client, f"/transactions/{created['id']}/capture", {})
    before = client.get(f"/transactions/{created['id']}").json()

    responses = {
        "capture twice": post(client, f"/transactions/{created['id']}/capture", {}),
        "void after capture": client.post(f"/transactions/{created['id']}/void"),
    }

    for name, response in responses.items():
        assert assert_error(response, 409)["code"] == "duplicate_record", name
    assert client.get(f"/transactions/{created['id']}").json() == before


INVALID_CAPTURE = [
    ({"amount": 0}, "/amount"),
    ({"amount": -5}, "/amount"),
    ({"amount": "100"}, "/amount"),
    ({"amount": 1300}, "/amount"),
    ({"final": False}, "/final"),
    ({"final": "true"}, "/final"),
    ({"reauthorize_if_authorization_expired": 1}, "/reauthorize_if_authorization_expired"),
    ({"tip": 5}, "/tip"),
]


@pytest.mark.parametrize(("payload", "pointer"), INVALID_CAPTURE, ids=[p for _, p in INVALID_CAPTURE])
def test_invalid_capture_is_a_400_and_changes_nothing(client, payload, pointer):
    created = create(client)

    assert_error(
        post(client, f"/transactions/{created['id']}/capture", payload, HTTP_IDEMPOTENCY_KEY="c"), 400, pointer
    )

    txn = Transaction.objects.get()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    assert not IdempotencyRecord.objects.exists()


# --- refunds -----------------------------------------------------------------------------------------------


def test_refunds_create_list_and_get(client):
    created = create(client, intent="capture", external_identifier="order-9")
    base = f"/transactions/{created['id']}/refunds"

    partial = post(client, base, {"amount": 299, "reason": "late", "external_identifier": "r-1"})
    rest = post(client, base, {})

    assert partial.status_code == rest.status_code == 201
    first = partial.json()
    assert {key: first[key] for key in ("type", "amount", "status", "target_type", "target_id", "reason")} == {
        "type": "refund",
        "amount": 299,
        "status": "succeeded",
        "target_type": "payment-method",
        "target_id": None,
        "reason": "late",
    }
    assert (first["transaction_id"], first["transaction_external_identifier"]) == (created["id"], "order-9")
    assert rest.json()["amount"] == 1000
    unmarshal_json(partial.content.decode(), sdk_models.Refund)
    listed = client.get(base).json()
    assert [item["id"] for item in listed["items"]] == [rest.json()["id"], first["id"]]
    assert client.get(f"{base}/{first['id']}").json() == first
    assert client.get(f"/refunds/{first['id']}").json() == first
    assert client.get(f"/transactions/{created['id']}").json()["refunded_amount"] == 1299


def test_refunds_all_answers_the_refund_list(client):
    created = create(client, intent="capture")

    response = post(client, f"/transactions/{created['id']}/refunds/all", None)

    assert response.status_code == 201
    payload = response.json()
    assert [(item["amount"], item["target_type"]) for item in payload["items"]] == [(1299, "payment-method")]
    unmarshal_json(response.content.decode(), sdk_models.Refunds)
    assert_error(post(client, f"/transactions/{created['id']}/refunds/all", {"reason": "again"}), 409)


def test_refunding_an_uncaptured_transaction_is_refused(client):
    created = create(client)

    payload = assert_error(post(client, f"/transactions/{created['id']}/refunds", {"amount": 1}), 409)

    assert "authorized but not captured" in payload["message"]
    assert not Refund.objects.exists()


INVALID_REFUND = [
    ({"amount": 0}, "/amount"),
    ({"amount": 1.5}, "/amount"),
    ({"amount": 1300}, "/amount"),
    ({"target_type": "bank"}, "/target_type"),
    ({"target_id": "nope", "target_type": "gift-card-redemption"}, "/target_id"),
    ({"target_type": "gift-card-redemption", "target_id": str(uuid.uuid4())}, "/target_id"),
    ({"target_type": "gift-card-redemption"}, "/target_id"),
    ({"target_id": str(uuid.uuid4())}, "/target_id"),
    ({"reason": 5}, "/reason"),
    ({"why": "x"}, "/why"),
]


@pytest.mark.parametrize(
    ("payload", "pointer"), INVALID_REFUND, ids=[f"{p}-{n}" for n, (_, p) in enumerate(INVALID_REFUND)]
)
def test_invalid_refund_is_a_400_and_refunds_nothing(client, payload, pointer):
    created = create(client, intent="capture")

    assert_error(post(client, f"/transactions/{created['id']}/refunds", payload), 400, pointer)

    assert not Refund.objects.exists()
    assert Transaction.objects.get().refunded_amount == 0


# --- access ------------------------------------------------------------------------------------------------


def _requests(transaction_id, refund_id):
    base = f"/transactions/{transaction_id}"
    return {
        "list": ("get", "/transactions", None),
        "create": ("post", "/transactions", body()),
        "get": ("get", base, None),
        "update": ("put", base, {"metadata": {"a": "b"}}),
        "capture": ("post", f"{base}/capture", {}),
        "void": ("post", f"{base}/void", None),
        "cancel": ("post", f"{base}/cancel", None),
        "refunds": ("get", f"{base}/refunds", None),
        "refund": ("post", f"{base}/refunds", {"amount": 1}),
        "refund all": ("post", f"{base}/refunds/all", None),
        "refund get": ("get", f"{base}/refunds/{refund_id}", None),
        "refund by id": ("get", f"/refunds/{refund_id}", None),
    }


READ = {"list", "get", "refunds", "refund get", "refund by id"}
ALL = {
    "list",
    "create",
    "get",
    "update",
    "capture",
    "void",
    "cancel",
    "refunds",
    "refund",
    "refund all",
    "refund get",
    "refund by id",
}
SCOPES = [
    (["transactions.read"], READ),
    (["*.read"], READ),
    (["transactions.write"], ALL - READ),
    (["*.write"], ALL - READ),
    (["gift-cards.write"], {"refund all"}),
    (["embed"], {"create"}),
    (["buyers.read", "buyers.write"], set()),
]


@pytest.mark.parametrize(("scopes", "allowed"), SCOPES, ids=[",".join(s) for s, _ in SCOPES])
def test_scope_matrix(api_client, merchant_account, scopes, allowed):
    refund = RefundFactory(transaction__merchant_account=merchant_account, amount=1)
    client = api_client(scopes=scopes, embed={"amount": 1299, "currency": "USD"})

    for name, (method, path, payload) in _requests(refund.transaction_id, refund.pk).items():
        response = getattr(client, method)(path, payload, format="json")
        if name in allowed:
            assert response.status_code != 403, (name, response.content)
        else:
            assert response.status_code == 403, (name, response.content)


def test_another_accounts_transactions_and_refunds_are_not_found(api_client, merchant_account, other_merchant_account):
    refund = RefundFactory(transaction__merchant_account=other_merchant_account, amount=1)
    client = api_client(scopes=["transactions.read", "transactions.write"])

    for name, (method, path, payload) in _requests(refund.transaction_id, refund.pk).items():
        if name in {"list", "create"}:
            continue
        assert_error(getattr(client, method)(path, payload, format="json"), 404), name
    assert client.get("/transactions").json()["items"] == []
    txn = Transaction.objects.get()
    assert (txn.status, txn.refunded_amount, txn.metadata) == ("capture_succeeded", 0, None)
    assert Refund.objects.count() == 1


def test_missing_token_is_401(anonymous_client, merchant_account):
    assert_error(anonymous_client.get("/transactions"), 401)
    assert_error(anonymous_client.post("/transactions", body(), format="json"), 401)
