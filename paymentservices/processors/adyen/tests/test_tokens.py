"""Stored cards kept at Adyen (Prism serving the project's Checkout contract, every request validated against it): a
zero-value check that stores the card for the stored method's shopper; the method's later payments to that service
send the stored payment method's id, never the card's number (the mock's exchanges show what was sent), with the
shopper reference, ContAuth, and the first payment's network reference when the merchant initiates them."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from paymentmethods.tests.factories import PaymentMethodFactory
from paymentservices.models import PaymentServiceToken
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db

NUMBER = "4111111111111111"


@pytest.fixture
def service(merchant_account, adyen_mock):
    return PaymentServiceFactory(adyen=True, merchant_account=merchant_account)


def _payments(mock) -> list:
    return [exchange.body for exchange in mock.exchanges if exchange.url.endswith("/payments")]


def _keep(client, method, service):
    body = {"payment_service_id": str(service.pk), "redirect_url": "https://shop.example/back"}
    return client.post(f"/payment-methods/{method.pk}/payment-service-tokens", body, format="json")


def test_a_stored_card_is_stored_at_adyen_for_the_methods_shopper(api_client, merchant_account, service, adyen_mock):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    adyen_mock.answer("/payments", example="card-stored")

    body = _keep(api_client(scopes=["payment-methods.write"]), method, service).json()

    assert (body["status"], body["token"]) == ("succeeded", "SIMSTOREDCARD0001")
    (sent,) = _payments(adyen_mock)
    assert (sent["storePaymentMethod"], sent["shopperReference"]) == (True, str(method.pk))
    assert (sent["amount"]["value"], sent["recurringProcessingModel"]) == (0, "UnscheduledCardOnFile")
    assert PaymentServiceToken.objects.get().customer == str(method.pk)


def test_a_card_adyen_refuses_is_a_failed_token(api_client, merchant_account, service, adyen_mock):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    adyen_mock.answer("/payments", example="refused-2")

    body = _keep(api_client(scopes=["payment-methods.write"]), method, service).json()

    assert (body["status"], body["token"]) == ("failed", None)
    assert PaymentServiceToken.objects.get().reason.startswith("Adyen: ")


@pytest.mark.parametrize("merchant_initiated", [False, True], ids=["buyer-present", "merchant-initiated"])
def test_the_next_payment_sends_the_stored_payment_method_and_no_card_number(
    api_client, merchant_account, service, adyen_mock, merchant_initiated
):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    client = api_client(scopes=["payment-methods.write", "transactions.write"])
    adyen_mock.answer("/payments", example="card-stored")
    _keep(client, method, service)
    method.scheme_transaction_id = "MCC123456789012"  # the first payment's network reference, kept with the method
    method.save(update_fields=["scheme_transaction_id"])
    adyen_mock.reset()
    adyen_mock.answer("/payments", example="result-Authorised")

    answer = client.post(
        "/transactions",
        {
            "amount": 1299,
            "currency": "EUR",
            "payment_method": {"method": "id", "id": str(method.pk)},
            "payment_service_id": str(service.pk),
            "merchant_initiated": merchant_initiated,
            "is_subsequent_payment": merchant_initiated,
        },
        format="json",
    ).json()

    assert answer["status"] == "authorization_succeeded", answer
    (sent,) = _payments(adyen_mock)
    assert NUMBER not in str(sent)
    assert sent["paymentMethod"] == {"type": "scheme", "storedPaymentMethodId": "SIMSTOREDCARD0001"}
    assert (sent["shopperReference"], sent["shopperInteraction"]) == (str(method.pk), "ContAuth")
    if merchant_initiated:
        assert sent["recurringProcessingModel"] == "UnscheduledCardOnFile"
        assert sent["additionalData"]["networkTxReference"] == "MCC123456789012"
    else:
        assert sent["recurringProcessingModel"] == "CardOnFile"


def test_a_stored_payment_method_adyen_no_longer_has_is_revoked_and_the_next_payment_sends_the_card(
    api_client, merchant_account, service, adyen_mock
):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    client = api_client(scopes=["payment-methods.read", "payment-methods.write", "transactions.write"])
    adyen_mock.answer("/payments", example="card-stored")
    _keep(client, method, service)
    payment = {
        "amount": 1299,
        "currency": "EUR",
        "payment_method": {"method": "id", "id": str(method.pk)},
        "payment_service_id": str(service.pk),
    }
    adyen_mock.reset()
    adyen_mock.answer("/payments", code=422, example="stored-method-missing")

    refused = client.post("/transactions", payment, format="json").json()

    assert refused["status"] == "authorization_declined"
    kept = PaymentServiceToken.objects.get()
    assert (kept.revoked_at is not None, kept.reason) == (True, "PaymentDetail is not found")
    listed = client.get(f"/payment-methods/{method.pk}/payment-service-tokens").json()["items"]
    assert [(item["status"], item["token"]) for item in listed] == [("failed", None)]
    adyen_mock.reset()
    adyen_mock.answer("/payments", example="result-Authorised")
    assert client.post("/transactions", payment, format="json").json()["status"] == "authorization_succeeded"
    (sent,) = _payments(adyen_mock)
    assert sent["paymentMethod"]["number"] == NUMBER  # the card, from the vault, again


def _deletes(mock) -> list:
    return [exchange for exchange in mock.exchanges if exchange.method == "DELETE"]


def test_a_token_deleted_here_is_deleted_at_adyen_for_its_shopper(api_client, merchant_account, service, adyen_mock):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    client = api_client(scopes=["payment-methods.read", "payment-methods.write"])
    adyen_mock.answer("/payments", example="card-stored")
    token = _keep(client, method, service).json()
    adyen_mock.reset()

    response = client.delete(f"/payment-methods/{method.pk}/payment-service-tokens/{token['id']}")

    assert response.status_code == 204
    [deleted] = _deletes(adyen_mock)
    path, _, query = deleted.url.partition("?")
    assert (path.removeprefix(adyen_mock.url), deleted.status) == ("/storedPaymentMethods/SIMSTOREDCARD0001", 204)
    assert dict(parse_qsl(query)) == {"shopperReference": str(method.pk), "merchantAccount": "ShopECOM"}
    assert not PaymentServiceToken.objects.exists()


def test_a_token_adyen_cannot_be_asked_to_delete_is_deleted_here_all_the_same(
    api_client, merchant_account, service, adyen_mock, settings, caplog
):
    """Nothing sends the token any more: one left at Adyen is harmless, so the delete answers 204 and says so in the
    log rather than keep a token the merchant asked to drop."""
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    client = api_client(scopes=["payment-methods.read", "payment-methods.write"])
    adyen_mock.answer("/payments", example="card-stored")
    token = _keep(client, method, service).json()
    override_processor(settings, "adyen", API_BASE="http://127.0.0.1:9", TIMEOUT_SECONDS=2)

    response = client.delete(f"/payment-methods/{method.pk}/payment-service-tokens/{token['id']}")

    assert response.status_code == 204
    assert not PaymentServiceToken.objects.exists()
    assert "not dropped at its processor (Adyen gave no answer" in caplog.text
