"""Stored cards kept at Adyen (Prism serving the project's Checkout contract, every request validated against it): a
zero-value check that stores the card for the stored method's shopper; the method's later payments to that service
send the stored payment method's id, never the card's number (the mock's exchanges show what was sent), with the
shopper reference, ContAuth, and the first payment's network reference when the merchant initiates them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from urllib.parse import parse_qsl

import pytest

from paymentmethods.tests.factories import PaymentMethodFactory
from payments.tests.assertions import assert_error
from paymentservices.models import InboundNotification, PaymentServiceToken
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


TOKENIZATION_KEY = "33" * 32


def _token_event(stored_id: str, *, event_type: str = "recurring.token.disabled", event_id: str = "QBQQ9DLNRHHKGK38"):
    """Adyen's tokenization webhook about a stored payment method, and the headers it is sent with: its HMAC-SHA256
    (the key in hex) over the body as sent, base64, written out here so the library's check meets an independent
    signer."""
    event = {
        "createdAt": "2026-11-29T10:00:00+01:00",
        "environment": "test",
        "eventId": event_id,
        "type": event_type,
        "data": {
            "merchantAccount": "ShopECOM",
            "shopperReference": "shopper",
            "storedPaymentMethodId": stored_id,
            "type": "visastandarddebit",
        },
    }
    payload = json.dumps(event).encode()
    digest = hmac.new(bytes.fromhex(TOKENIZATION_KEY), payload, hashlib.sha256).digest()
    return payload, {"HTTP_HMACSIGNATURE": base64.b64encode(digest).decode()}


def _kept(api_client, merchant_account, adyen_mock, *, tokenization_key: bool = True) -> PaymentServiceToken:
    """A stored card kept at a service that verifies Adyen's notifications (and, unless told not to, its tokenization
    webhook's too)."""
    fields = [
        {"key": "api_key", "value": "AQE_factory_adyen_key_0123"},
        {"key": "merchant_account", "value": "ShopECOM"},
        {"key": "hmac_key", "value": "11" * 32},
    ]
    if tokenization_key:
        fields.append({"key": "tokenization_hmac_key", "value": TOKENIZATION_KEY})
    service = PaymentServiceFactory(merchant_account=merchant_account, definition_id="adyen-card", fields=fields)
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    adyen_mock.answer("/payments", example="card-stored")
    _keep(api_client(scopes=["payment-methods.write"]), method, service)
    return PaymentServiceToken.objects.get()


@pytest.fixture
def kept(api_client, merchant_account, adyen_mock) -> PaymentServiceToken:
    return _kept(api_client, merchant_account, adyen_mock)


def _notify(client, kept: PaymentServiceToken, payload: bytes, headers: dict):
    url = f"/inbound/payment-services/{kept.payment_service_id}/notifications"
    return client.post(url, payload, content_type="application/json", **headers)


def test_adyens_token_disabled_notification_revokes_the_token_once(client, kept):
    payload, headers = _token_event(kept.token)

    first = _notify(client, kept, payload, headers)
    again = _notify(client, kept, payload, headers)

    assert (first.status_code, again.status_code) == (200, 200), first.content
    kept.refresh_from_db()
    assert (kept.usable, kept.reason) == (False, "revoked by the processor (recurring.token.disabled)")
    [record] = InboundNotification.objects.filter(event_type="recurring.token.disabled")
    assert (record.object_id, record.matched) == (kept.token, True)


def test_another_tokenization_event_changes_nothing(client, kept):
    payload, headers = _token_event(kept.token, event_type="recurring.token.created")

    assert _notify(client, kept, payload, headers).status_code == 200

    kept.refresh_from_db()
    assert kept.usable


@pytest.mark.parametrize(
    "forged",
    [
        lambda payload, headers: (payload.replace(b"visastandarddebit", b"mc"), headers),
        lambda payload, headers: (payload, {}),
        lambda payload, headers: (payload, {"HTTP_HMACSIGNATURE": "not base64 !"}),
    ],
    ids=["changed-after-signing", "unsigned", "garbled-signature"],
)
def test_a_tokenization_event_not_signed_with_its_key_is_refused_and_changes_nothing(client, kept, forged):
    payload, headers = forged(*_token_event(kept.token))

    response = _notify(client, kept, payload, headers)

    assert_error(response, 400, "/hmacsignature", location="header")
    kept.refresh_from_db()
    assert kept.usable
    assert not InboundNotification.objects.exists()


def test_a_tokenization_event_to_a_service_without_its_key_is_refused(client, api_client, merchant_account, adyen_mock):
    kept = _kept(api_client, merchant_account, adyen_mock, tokenization_key=False)
    payload, headers = _token_event(kept.token)

    response = _notify(client, kept, payload, headers)

    assert "no tokenization HMAC key" in assert_error(response, 400, "/type")["message"]
    kept.refresh_from_db()
    assert kept.usable
