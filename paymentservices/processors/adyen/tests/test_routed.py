"""Payments routed to an adyen-card service through the API, against Prism validating every request by the contract of
Adyen's document (the `adyen_mock` fixture): authorized, captured and refunded through the library; Adyen without an
answer hands the payment to the next service; Adyen's refusal is final."""

from __future__ import annotations

import pytest

from paymentservices.processors.adyen import PROCESSOR as ADYEN
from paymentservices.processors.adyen.tests.mock import PAYMENT_PSP
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "03/30", "security_code": "737"}
ADYEN_FIELDS = [
    {"key": "api_key", "value": "AQE_routed_adyen_key_0123"},
    {"key": "merchant_account", "value": "ShopECOM"},
]


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["*.read", "*.write"])


@pytest.fixture
def adyen_service(merchant_account):
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        definition_id=ADYEN.id,
        display_name="Adyen",
        fields=ADYEN_FIELDS,
        accepted_currencies=["EUR"],
        accepted_countries=["DE", "NL"],
        position=1,
    )


def _pay(client, **fields):
    return client.post(
        "/transactions", {"amount": 5000, "currency": "EUR", "payment_method": CARD, **fields}, format="json"
    )


def test_a_payment_routed_to_adyen_is_authorized_captured_and_refunded_there(client, adyen_service, adyen_mock):
    adyen_mock.answer("/payments", example="card-direct")
    adyen_mock.answer("/payments/*/captures", example="capture")
    adyen_mock.answer("/payments/*/refunds", example="refund")

    created = _pay(client, payment_service_id=str(adyen_service.pk))

    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status"] == "authorization_succeeded"
    assert body["payment_service"]["payment_service_definition_id"] == "adyen-card"
    assert body["payment_service_transaction_id"] == PAYMENT_PSP
    captured = client.post(f"/transactions/{body['id']}/capture", {"amount": 4000}, format="json")
    assert (captured.status_code, captured.json()["status"]) == (200, "capture_succeeded")
    refunded = client.post(f"/transactions/{body['id']}/refunds", {"amount": 1000}, format="json")
    assert refunded.status_code == 201, refunded.content
    sent = [exchange.url.split("?")[0] for exchange in adyen_mock.exchanges]
    assert [url.rsplit("/", 1)[-1] for url in sent] == ["payments", "captures", "refunds"]
    assert all(f"/{PAYMENT_PSP}/" in url for url in sent[1:])


def test_adyen_without_an_answer_hands_the_payment_to_the_next_service(client, adyen_service, adyen_mock):
    adyen_mock.answer("/payments", code=500)
    adyen_mock.answer("/cancels", example="cancel-with-own-reference")

    created = _pay(client)  # Adyen first by position, the account's sandbox next

    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status"] == "authorization_succeeded"
    assert body["payment_service"]["payment_service_definition_id"] == "mock-card"
    events = client.get(f"/transactions/{body['id']}/events").json()["items"]
    assert "payment-connector-response-transaction-authorization-failed" in [event["name"] for event in events]


def test_a_refusal_at_adyen_is_final(client, adyen_service, adyen_mock):
    adyen_mock.answer("/payments", example="refused-2")  # Adyen's "Refused" (do not honor)

    created = _pay(client)

    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status"] == "authorization_declined"
    assert body["payment_service"]["payment_service_definition_id"] == "adyen-card"
    assert Transaction.objects.get(pk=body["id"]).payment_service_id == adyen_service.pk
    assert [exchange.url.split("?")[0].rsplit("/", 1)[-1] for exchange in adyen_mock.exchanges] == ["payments"]


def test_two_partial_captures_at_adyen_add_up_to_the_authorized_amount(client, adyen_service, adyen_mock):
    adyen_mock.answer("/payments", example="card-direct")
    adyen_mock.answer("/payments/*/captures", example="capture")
    body = _pay(client, payment_service_id=str(adyen_service.pk)).json()

    first = client.post(f"/transactions/{body['id']}/capture", {"amount": 2000, "final": False}, format="json")
    last = client.post(f"/transactions/{body['id']}/capture", {"final": True}, format="json")

    assert (first.json()["status"], first.json()["captured_amount"]) == ("capture_succeeded", 2000)
    assert (last.json()["status"], last.json()["captured_amount"]) == ("capture_succeeded", 5000)
    captures = client.get(f"/transactions/{body['id']}/captures").json()["items"]
    assert [(capture["amount"], capture["final"], capture["status"]) for capture in captures] == [
        (3000, True, "succeeded"),
        (2000, False, "succeeded"),
    ]
    sent = [exchange for exchange in adyen_mock.exchanges if exchange.url.split("?")[0].endswith("/captures")]
    assert [(e.body["amount"]["value"], e.body["reference"]) for e in sent] == [
        (2000, f"{body['id']}:capture"),
        (3000, f"{body['id']}:capture:2"),
    ]
    assert adyen_mock.violations() == []


def test_an_increment_at_adyen_sends_the_new_total_as_an_amount_update(client, adyen_service, adyen_mock):
    adyen_mock.answer("/payments", example="card-direct")
    adyen_mock.answer("/payments/*/amountUpdates", example="amount-update")
    body = _pay(client, payment_service_id=str(adyen_service.pk)).json()

    response = client.post(f"/transactions/{body['id']}/authorization/increment", {"amount": 1500}, format="json")

    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["transaction"]["authorized_amount"]) == ("succeeded", 6500)
    (sent,) = [e for e in adyen_mock.exchanges if e.url.split("?")[0].endswith("/amountUpdates")]
    assert f"/payments/{PAYMENT_PSP}/amountUpdates" in sent.url
    assert (sent.body["amount"], sent.body["merchantAccount"]) == ({"value": 6500, "currency": "EUR"}, "ShopECOM")
    assert sent.body["reference"].startswith(f"{body['id']}:increment:")
    assert adyen_mock.violations() == []
