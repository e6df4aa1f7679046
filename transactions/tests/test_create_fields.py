"""Every body field of the transaction operations acts or is refused by name: never accepted and dropped."""

import uuid

import pytest

from payments.connectors import AuthorizationRequest, BrowserInfo, StatementDescriptor, ThreeDSecureData
from payments.rest.models import IdempotencyRecord
from payments.tests.assertions import assert_error
from payments.vault.models import VaultedCard
from paymentservices.definitions import SANDBOX_ID
from paymentservices.processors import processor_get
from transactions.models import Refund, Transaction
from transactions.tests.conftest import CARD
from transactions.tests.factories import TransactionFactory
from transactions.tests.test_api import body, create, post

pytestmark = pytest.mark.django_db

THREE_D_SECURE_V2 = {
    "version": "2.2.0",
    "cavv": "AAABCZIhcQAAAABZlyFxAAAAAAA=",
    "eci": "05",
    "directory_response": "C",
    "authentication_response": "Y",
    "directory_transaction_id": "c4e59ceb-a382-4d6a-bc87-385d591fa09d",
    "scheme": "visa",
}
THREE_D_SECURE_V1 = {
    "version": "1.0.2",
    "cavv": "AAABCZIhcQAAAABZlyFxAAAAAAA=",
    "eci": "05",
    "directory_response": "Y",
    "authentication_response": "Y",
    "cavv_algorithm": "2",
    "xid": "MDAwMDAwMDAwMDAwMDAwMzIyNzY=",
}
BROWSER = {
    "javascript_enabled": True,
    "java_enabled": False,
    "language": "en-GB",
    "color_depth": 24,
    "screen_height": 1080,
    "screen_width": 1920,
    "time_zone_offset": -60,
    "user_agent": "Mozilla/5.0",
    "user_device": "desktop",
}
DESCRIPTOR = {"name": "TEA SHOP", "description": "Order 42", "city": "London", "country": "GB", "url": "tea.example"}
PURCHASE = {
    "tax_amount": 200,
    "duty_amount": 0,
    "shipping_amount": 350,
    "amount_includes_tax": True,
    "merchant_tax_id": "GB123456789",
    "purchase_order_number": "PO-1",
    "customer_reference_number": "C-9",
    "supplier_order_number": "SO-7",
}
RECIPIENT = {"first_name": "Ada", "last_name": "Lovelace", "account_number": "12345678", "date_of_birth": "1815-12-10"}


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def authorization(connector) -> AuthorizationRequest:
    [(_, call)] = [call for call in connector.calls if call[0] == "authorize"]
    return call["request"]


def test_what_the_connector_can_use_is_stored_echoed_and_passed_to_it(client, connector):
    payload = create(
        client,
        three_d_secure_data=THREE_D_SECURE_V2,
        browser_info=BROWSER,
        statement_descriptor=DESCRIPTOR,
        description="Two teas",
        payment_source="moto",
        merchant_initiated=True,
        is_subsequent_payment=True,
        previous_scheme_transaction_id="123456789012345",
        previous_transaction_link_id="link-1",
        allow_partial_authorization=True,
        installment_count=3,
        recipient=RECIPIENT,
        connection_options={"stripe-card": None},
        **PURCHASE,
    )

    assert payload["status"] == "authorization_succeeded"
    assert payload["statement_descriptor"] == {**DESCRIPTOR, "phone_number": None, "postal_code": None}
    assert payload["three_d_secure"] == {
        "version": "2.2.0",
        "status": "complete",
        "method": "challenge",
        "response_data": {name: value for name, value in THREE_D_SECURE_V2.items() if name != "scheme"},
        "error_data": None,
        "amount": None,
    }
    assert (payload["payment_source"], payload["merchant_initiated"], payload["is_subsequent_payment"]) == (
        "moto",
        True,
        True,
    )
    assert {name: payload[name] for name in PURCHASE} == PURCHASE
    assert (payload["installment_count"], payload["recipient"]["last_name"]) == (3, "Lovelace")

    sent = authorization(connector)
    assert sent.three_d_secure == ThreeDSecureData(**THREE_D_SECURE_V2)
    assert sent.browser_info == BrowserInfo(**BROWSER)
    assert sent.statement_descriptor == StatementDescriptor(**DESCRIPTOR)
    assert (sent.payment_source, sent.merchant_initiated, sent.is_subsequent_payment) == ("moto", True, True)
    assert (sent.previous_scheme_transaction_id, sent.previous_transaction_link_id) == ("123456789012345", "link-1")
    assert (sent.allow_partial_authorization, sent.installment_count, sent.description) == (True, 3, "Two teas")
    assert (sent.purchase.tax_amount, sent.purchase.supplier_order_number) == (200, "SO-7")
    assert sent.recipient["first_name"] == "Ada"
    assert sent.connection_options == {}
    assert (sent.amount, sent.currency, sent.capture) == (1299, "USD", False)
    txn = Transaction.objects.get()
    assert (txn.browser_info["user_device"], txn.description) == ("desktop", "Two teas")


def test_a_version_1_result_is_echoed_with_its_scheme(client):
    payload = create(client, three_d_secure_data={**THREE_D_SECURE_V1, "scheme": "visa"})

    assert payload["three_d_secure"]["response_data"] == {**THREE_D_SECURE_V1, "scheme": "visa"}
    assert (payload["three_d_secure"]["status"], payload["three_d_secure"]["method"]) == ("complete", "challenge")


@pytest.mark.parametrize(
    ("three_d_secure", "status", "summary"),
    [
        ({"authentication_response": "N"}, "authorization_declined", "declined"),
        ({"authentication_response": None, "directory_response": "R"}, "authorization_declined", "declined"),
        ({"authentication_response": None, "directory_response": "Y"}, "authorization_succeeded", "complete"),
        ({"authentication_response": None, "directory_response": "U"}, "authorization_succeeded", "error"),
    ],
    ids=["challenge-failed", "rejected", "frictionless", "unavailable"],
)
def test_the_sandbox_declines_a_payment_whose_authentication_failed(client, three_d_secure, status, summary):
    payload = create(client, three_d_secure_data={**THREE_D_SECURE_V2, **three_d_secure})

    assert (payload["status"], payload["three_d_secure"]["status"]) == (status, summary)
    if status == "authorization_declined":
        assert (payload["error_code"], payload["intent_outcome"]) == ("failed_three_d_secure", "failed")


UNSUPPORTED = [
    ("async_capture", True),
    ("three_d_secure", {"amount": 100}),
    ("anti_fraud_fingerprint", "abc"),
    ("integration_client", "web"),
    ("approval_expires_at", "2030-01-01T00:00:00Z"),
]


@pytest.mark.parametrize(("name", "value"), UNSUPPORTED, ids=[name for name, _ in UNSUPPORTED])
def test_a_field_the_server_cannot_honour_is_refused_by_name(client, name, value):
    response = post(client, "/transactions", body(**{name: value}), HTTP_IDEMPOTENCY_KEY="k-1")

    payload = assert_error(response, 400, f"/{name}", location="body")
    assert payload["details"][0]["message"].startswith("Not supported: ")
    assert not Transaction.objects.exists()
    assert not VaultedCard.objects.exists()
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.parametrize(
    ("name", "value"),
    [(name, None) for name, _ in UNSUPPORTED] + [("store", False), ("async_capture", False)],
    ids=[f"{name}-null" for name, _ in UNSUPPORTED] + ["store-false", "async_capture-false"],
)
def test_a_value_that_asks_for_nothing_is_accepted(client, name, value):
    assert create(client, **{name: value})["status"] == "authorization_succeeded"


@pytest.mark.parametrize("name", ["buyer_id", "buyer_external_identifier", "external_identifier", "card_type"])
def test_card_fields_that_only_a_stored_method_uses_are_refused(client, name):
    # `redirect_url` is taken: a 3-D Secure challenge sends the buyer back there (test_three_d_secure.py).
    value = str(uuid.uuid4()) if name == "buyer_id" else "credit" if name == "card_type" else "x"
    response = post(client, "/transactions", body(payment_method={**CARD, name: value}))

    assert_error(response, 400, f"/payment_method/{name}", location="body")
    assert not Transaction.objects.exists()


def test_options_for_a_connection_that_is_not_configured_are_refused(client):
    response = post(client, "/transactions", body(connection_options={"stripe-card": {"stripe_connect": {}}}))

    payload = assert_error(response, 400, "/connection_options/stripe-card", location="body")
    assert "not supported" in payload["details"][0]["message"]
    assert not Transaction.objects.exists()
    assert not VaultedCard.objects.exists()


def test_options_are_passed_to_a_connector_that_reads_them(client, connector, monkeypatch):
    # A processor declares the sets it reads (`Processor.connection_options_keys`).
    monkeypatch.setattr(processor_get(SANDBOX_ID), "connection_options_keys", frozenset({"mock-card"}))

    create(client, connection_options={"mock-card": {"skip_retry": True}, "stripe-card": None})

    assert authorization(connector).connection_options == {"mock-card": {"skip_retry": True}}
    assert Transaction.objects.get().connection_options == {"mock-card": {"skip_retry": True}, "stripe-card": None}


INVALID = [
    (body(three_d_secure_data={**THREE_D_SECURE_V2, "eci": "123"}), "/three_d_secure_data/eci"),
    (body(three_d_secure_data={**THREE_D_SECURE_V2, "version": "3.0"}), "/three_d_secure_data/version"),
    (
        body(three_d_secure_data={**THREE_D_SECURE_V2, "directory_response": "YY"}),
        "/three_d_secure_data/directory_response",
    ),
    (body(three_d_secure_data={**THREE_D_SECURE_V2, "scheme": "bank"}), "/three_d_secure_data/scheme"),
    (body(three_d_secure_data={**THREE_D_SECURE_V2, "extra": 1}), "/three_d_secure_data/extra"),
    (
        body(three_d_secure_data={k: v for k, v in THREE_D_SECURE_V2.items() if k != "directory_transaction_id"}),
        "/three_d_secure_data/directory_transaction_id",
    ),
    (body(three_d_secure_data={**THREE_D_SECURE_V1, "xid": None}), "/three_d_secure_data/xid"),
    (
        body(three_d_secure_data={**THREE_D_SECURE_V1, "directory_transaction_id": "x"}),
        "/three_d_secure_data/directory_transaction_id",
    ),
    (body(browser_info={**BROWSER, "user_device": "tv"}), "/browser_info/user_device"),
    (body(browser_info={**BROWSER, "color_depth": "24"}), "/browser_info/color_depth"),
    (body(browser_info={"user_agent": "x"}), "/browser_info/language"),
    (body(statement_descriptor={"name": "Tea"}), "/statement_descriptor/name"),
    (body(statement_descriptor={"phone_number": "123"}), "/statement_descriptor/phone_number"),
    (body(installment_count=0), "/installment_count"),
    (body(installment_count=101), "/installment_count"),
    (body(tax_amount=-1), "/tax_amount"),
    (body(merchant_tax_id="x" * 101), "/merchant_tax_id"),
    (body(amount_includes_tax="yes"), "/amount_includes_tax"),
    (body(recipient={"first_name": "Ada"}), "/recipient/last_name"),
    (body(previous_scheme_transaction_id=""), "/previous_scheme_transaction_id"),
    (body(connection_options=["stripe-card"]), "/connection_options"),
    (body(connection_options={"stripe-card": "yes"}), "/connection_options/stripe-card"),
    (body(description=5), "/description"),
]


@pytest.mark.parametrize(("payload", "pointer"), INVALID, ids=[pointer for _, pointer in INVALID])
def test_invalid_connector_inputs_are_a_400_naming_the_field(client, payload, pointer):
    assert_error(post(client, "/transactions", payload), 400, pointer, location="body")
    assert not Transaction.objects.exists()


def test_put_refuses_options_no_connection_reads_and_accepts_an_empty_set(client, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)
    path = f"/transactions/{txn.pk}"

    refused = client.put(path, {"connection_options": {"adyen-card": {"x": 1}}}, format="json")
    accepted = client.put(path, {"connection_options": {}, "external_identifier": "e-1"}, format="json")

    assert_error(refused, 400, "/connection_options/adyen-card")
    assert accepted.status_code == 200, accepted.content
    txn.refresh_from_db()
    assert (txn.connection_options, txn.external_identifier) == ({}, "e-1")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("reauthorize_if_authorization_expired", True),
        ("external_identifier", ""),
        ("cart_items", [{"name": "Tea", "quantity": 1, "unit_amount": 1}]),
        ("airline", {"booking_code": "X"}),
        ("tracking", []),
    ],
)
def test_capture_refuses_what_it_cannot_honour(client, merchant_account, name, value):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)

    response = post(client, f"/transactions/{txn.pk}/capture", {name: value})

    assert_error(response, 400, f"/{name}", location="body")
    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"


def test_capture_accepts_what_the_sdk_always_sends(client, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)
    sdk_body = {"final": True, "reauthorize_if_authorization_expired": False, "external_identifier": None}

    response = post(client, f"/transactions/{txn.pk}/capture", sdk_body)

    assert response.status_code == 200, response.content
    assert response.json()["status"] == "capture_succeeded"


@pytest.mark.parametrize(
    ("payload", "pointer", "created"),
    [
        ({"reason": "r" * 100, "external_identifier": "e" * 300}, None, True),
        ({"reason": "r" * 101}, "/reason", False),
        ({"external_identifier": "e" * 301}, "/external_identifier", False),
    ],
    ids=["at-the-limits", "reason-too-long", "identifier-too-long"],
)
def test_refund_limits_are_upstreams(client, merchant_account, payload, pointer, created):
    txn = TransactionFactory(merchant_account=merchant_account, captured=True)

    for path in (f"/transactions/{txn.pk}/refunds", f"/transactions/{txn.pk}/refunds/all"):
        response = post(client, path, payload)
        if created:
            assert response.status_code == 201, response.content
            break
        assert_error(response, 400, pointer)
    assert Refund.objects.exists() is created
    if created:
        refund = Refund.objects.get()
        assert (len(refund.reason), len(refund.external_identifier)) == (100, 300)


def test_the_buyers_email_is_kept_for_the_filters(client, merchant_account):
    from buyers.tests.factories import BuyerFactory

    buyer = BuyerFactory(merchant_account=merchant_account, billing_details={"email_address": "Grace@Example.com"})
    create(client, buyer_id=str(buyer.pk))
    create(client, buyer={"billing_details": {"email_address": "Ada@Example.com"}})

    emails = set(Transaction.objects.values_list("buyer_email_address", flat=True))
    assert emails == {"ada@example.com", "grace@example.com"}


def test_the_buyers_address_is_kept_only_when_the_buyers_browser_calls(api_client, merchant_account):
    server = api_client(scopes=["transactions.write"])
    browser = api_client(scopes=["embed"], embed={"amount": 1299, "currency": "USD"})

    for client in (server, browser):
        response = post(client, "/transactions", body(), REMOTE_ADDR="203.0.113.9")
        assert response.status_code == 201, response.content

    assert set(Transaction.objects.values_list("ip_address", flat=True)) == {"203.0.113.9", None}
