"""Stored cards kept at Stripe (localstripe, read back with Stripe's own library): a Customer with the card's
PaymentMethod attached; the stored method's later payments to that service send the PaymentMethod and Customer, never
the card's number, `off_session` when the merchant initiates them; a card Stripe refuses is a failed token; a deleted
token is detached at Stripe."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import parse_qs

import pytest
import requests
import stripe

from paymentmethods.tests.factories import PaymentMethodFactory
from paymentservices.models import PaymentServiceToken
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db

KEY = "sk_test_kept_cards_0123456789"
NUMBER = "4242424242424242"


@pytest.fixture
def at_stripe(stripe_api) -> stripe.StripeClient:
    return stripe.StripeClient(KEY, base_addresses={"api": stripe_api.url}, max_network_retries=0)


@pytest.fixture
def service(merchant_account, stripe_api):
    return PaymentServiceFactory(merchant_account=merchant_account, fields=[{"key": "secret_key", "value": KEY}])


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, dict[str, list[str]]]]:
    """Every request the library sends to Stripe, as (path, form fields): what reached the double."""
    calls: list[tuple[str, dict[str, list[str]]]] = []
    send = requests.Session.send

    def recording(self, request, **kwargs):
        body = request.body.decode() if isinstance(request.body, bytes) else (request.body or "")
        calls.append((requests.utils.urlparse(request.url).path, parse_qs(body)))
        return send(self, request, **kwargs)

    monkeypatch.setattr(requests.Session, "send", recording)
    return calls


def _keep(client, method, service):
    # With the card's security code: localstripe makes no PaymentMethod without one (Stripe itself does).
    body = {"payment_service_id": str(service.pk), "redirect_url": "https://shop.example/back", "security_code": "123"}
    return client.post(f"/payment-methods/{method.pk}/payment-service-tokens", body, format="json")


def _pay(client, method, service, *, merchant_initiated: bool):
    body = {
        "amount": 1299,
        "currency": "USD",
        "payment_method": {"method": "id", "id": str(method.pk)},
        "payment_service_id": str(service.pk),
        "merchant_initiated": merchant_initiated,
        "is_subsequent_payment": merchant_initiated,
    }
    return client.post("/transactions", body, format="json")


def test_a_stored_card_is_kept_under_a_customer_at_stripe(api_client, merchant_account, service, at_stripe):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)

    response = _keep(api_client(scopes=["payment-methods.write"]), method, service)

    assert response.status_code == 201, response.content
    kept = PaymentServiceToken.objects.get()
    assert response.json()["token"] == kept.token
    at_stripe_method = at_stripe.v1.payment_methods.retrieve(kept.token)
    assert (at_stripe_method.customer, at_stripe_method.card.last4) == (kept.customer, "4242")
    assert at_stripe.v1.customers.retrieve(kept.customer).metadata["reference"] == str(method.pk)


@pytest.mark.parametrize("merchant_initiated", [False, True], ids=["buyer-present", "merchant-initiated"])
def test_the_next_payment_sends_the_token_and_no_card_number(
    api_client, merchant_account, service, at_stripe, sent, merchant_initiated
):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    client = api_client(scopes=["payment-methods.write", "transactions.write"])
    _keep(client, method, service)
    kept = PaymentServiceToken.objects.get()
    sent.clear()

    response = _pay(client, method, service, merchant_initiated=merchant_initiated)

    assert response.json()["status"] == "authorization_succeeded", response.content
    assert all(NUMBER not in str(fields) for _, fields in sent), sent
    assert "/v1/payment_methods" not in [path for path, _ in sent]
    (intent_fields,) = [fields for path, fields in sent if path == "/v1/payment_intents"]
    assert (intent_fields["payment_method"], intent_fields["customer"]) == ([kept.token], [kept.customer])
    assert intent_fields.get("off_session") == (["true"] if merchant_initiated else None)
    intent = at_stripe.v1.payment_intents.retrieve(response.json()["payment_service_transaction_id"])
    assert intent.payment_method == kept.token


def test_a_card_stripe_refuses_is_a_failed_token(api_client, merchant_account, service):
    method = PaymentMethodFactory(merchant_account=merchant_account, number="4000000000000002")

    body = _keep(api_client(scopes=["payment-methods.write"]), method, service).json()

    assert (body["status"], body["token"]) == ("failed", None)
    assert PaymentServiceToken.objects.get().reason.startswith("Stripe: ")


def test_a_deleted_token_is_detached_at_stripe_and_the_card_is_sent_again(
    api_client, merchant_account, service, at_stripe, sent
):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    client = api_client(scopes=["payment-methods.write", "transactions.write"])
    token = _keep(client, method, service).json()

    assert client.delete(f"/payment-methods/{method.pk}/payment-service-tokens/{token['id']}").status_code == 204
    assert at_stripe.v1.payment_methods.retrieve(token["token"]).customer is None
    sent.clear()
    _pay(client, method, service, merchant_initiated=False)
    assert "/v1/payment_methods" in [path for path, _ in sent]


def test_stripe_unreachable_is_a_failed_token_saying_so(api_client, merchant_account, service, settings):
    override_processor(settings, "stripe", API_BASE="http://127.0.0.1:9", TIMEOUT_SECONDS=1)
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)

    body = _keep(api_client(scopes=["payment-methods.write"]), method, service).json()

    assert (body["status"], body["token"]) == ("failed", None)
    assert PaymentServiceToken.objects.get().reason.startswith("The processor gave no answer: Stripe gave no answer")


def test_a_token_stripe_no_longer_has_is_revoked_and_the_next_payment_sends_the_card(
    api_client, merchant_account, service, at_stripe, sent
):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    client = api_client(scopes=["payment-methods.read", "payment-methods.write", "transactions.write"])
    _keep(client, method, service)
    kept = PaymentServiceToken.objects.get()
    at_stripe.v1.customers.delete(kept.customer)  # Stripe no longer has the card's Customer

    refused = _pay(client, method, service, merchant_initiated=True).json()

    assert refused["status"] == "authorization_declined"
    kept.refresh_from_db()
    assert kept.revoked_at is not None
    listed = client.get(f"/payment-methods/{method.pk}/payment-service-tokens").json()["items"]
    assert [(item["status"], item["token"]) for item in listed] == [("failed", None)]
    sent.clear()
    _pay(client, method, service, merchant_initiated=True)
    # The card, from the vault, again (localstripe then refuses a card sent without its security code: Stripe would
    # charge it under the stored-credential agreement).
    (card_fields,) = [fields for path, fields in sent if path == "/v1/payment_methods"]
    assert card_fields["card[number]"] == [NUMBER]


def test_stripes_notification_that_it_detached_the_card_revokes_the_token(api_client, merchant_account, stripe_api):
    secret = "whsec_kept_cards_0123"
    service = PaymentServiceFactory(
        merchant_account=merchant_account,
        fields=[{"key": "secret_key", "value": KEY}, {"key": "webhook_secret", "value": secret}],
    )
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    _keep(api_client(scopes=["payment-methods.write"]), method, service)
    kept = PaymentServiceToken.objects.get()
    event = {
        "id": "evt_detached_1",
        "object": "event",
        "type": "payment_method.detached",
        "data": {"object": {"id": kept.token, "object": "payment_method", "customer": None}},
    }
    payload = json.dumps(event).encode()
    stamp = int(time.time())
    digest = hmac.new(secret.encode(), f"{stamp}.".encode() + payload, hashlib.sha256).hexdigest()

    response = api_client().post(
        f"/inbound/payment-services/{service.pk}/notifications",
        payload,
        content_type="application/json",
        HTTP_STRIPE_SIGNATURE=f"t={stamp},v1={digest}",
    )

    assert response.status_code == 200, response.content
    kept.refresh_from_db()
    assert kept.revoked_at is not None
    assert not kept.usable
