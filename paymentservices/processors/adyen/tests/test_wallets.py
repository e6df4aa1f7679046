"""A wallet payment routed to Adyen: the decrypted device number goes as Adyen's `networkToken` payment method, its
cryptogram and ECI in `mpiData`, against Prism validating the request by the contract of Adyen's Checkout API."""

from __future__ import annotations

import pytest

from digitalwallets.tests.tokens import wallets_registered
from paymentservices.processors.adyen import PROCESSOR as ADYEN
from paymentservices.processors.adyen.connector import AdyenConnector
from paymentservices.processors.adyen.tests.mock import PAYMENT_PSP
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db

ADYEN_FIELDS = [
    {"key": "api_key", "value": "AQE_wallet_adyen_key_0123"},
    {"key": "merchant_account", "value": "ShopECOM"},
]
CRYPTOGRAM = "AgAAAAAABk4DWZ4C28yUQAAAAAA="


@pytest.fixture
def adyen_service(merchant_account):
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        definition_id=ADYEN.id,
        display_name="Adyen",
        fields=ADYEN_FIELDS,
        accepted_currencies=["USD"],
        position=0,
    )


@pytest.fixture
def bodies(monkeypatch) -> list[dict]:
    """The bodies the connector sends to Adyen's `/payments`."""
    sent: list[dict] = []
    original = AdyenConnector._payment_request

    def payment_request(self, request):
        body = original(self, request)
        sent.append(body)
        return body

    monkeypatch.setattr(AdyenConnector, "_payment_request", payment_request)
    return sent


@pytest.mark.parametrize("wallet", ["applepay", "googlepay"])
def test_a_wallet_payment_goes_to_adyen_as_a_network_token_with_its_cryptogram(
    api_client, merchant_account, settings, tmp_path, adyen_service, adyen_mock, bodies, wallet
):
    adyen_mock.answer("/payments", example="card-direct")
    wallets = wallets_registered(merchant_account, settings=settings, directory=tmp_path)
    token = wallets.apple() if wallet == "applepay" else wallets.google()
    client = api_client(scopes=["transactions.read", "transactions.write"])

    response = client.post(
        "/transactions",
        {"amount": 1299, "currency": "USD", "payment_method": {"method": wallet, "token": token}},
        format="json",
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["payment_service_transaction_id"]) == ("authorization_succeeded", PAYMENT_PSP)
    assert body["payment_method"]["method"] == wallet
    (sent,) = bodies
    assert sent["paymentMethod"]["type"] == "networkToken"
    assert "cvc" not in sent["paymentMethod"]
    assert sent["mpiData"]["tokenAuthenticationVerificationValue"] == CRYPTOGRAM
    assert sent["mpiData"]["eci"] == ("07" if wallet == "applepay" else "05")
    assert sent["shopperInteraction"] == "Ecommerce"
    assert adyen_mock.violations() == []
