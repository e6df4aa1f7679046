"""Adyen's connector sends nothing to a host that is not one of Adyen's (or exactly ADYEN_API_BASE): the attack of
issue 31 replayed on production settings (`paymentservices/tests/test_hosts.py` says how)."""

from __future__ import annotations

import pytest

from payments.connectors.base import AuthorizationRequest, Outcome
from payments.tests.assertions import assert_error
from paymentservices.models import PaymentService
from paymentservices.processors.adyen import PROCESSOR as ADYEN
from paymentservices.processors.adyen.connector import HOST_REFUSED, AdyenConnector, HostRefused, _Client
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.processors.tests.requests import card_request
from transactions.models import Transaction

ADYEN_DOMAINS = ("adyenpayments.com", "adyen.com")
LIVE_PREFIX = "1797a841fbb37ca7-AdyenDemo"


def _request() -> AuthorizationRequest:
    return card_request(reference="hosts-1")


@pytest.fixture
def production(settings):
    """Production's processor settings: Adyen's own URLs (no ADYEN_API_BASE), no sandbox payments."""
    settings.DEBUG = False
    override_processor(settings, "adyen", API_BASE="")
    settings.SANDBOX_PAYMENTS = False
    override_processor(settings, "adyen", TIMEOUT_SECONDS=2)
    return settings


@pytest.mark.parametrize(
    "prefix",
    [
        "x@127.0.0.1:{port}/?",
        "127.0.0.1:{port}/#",
        "x@127.0.0.1:{port}#",
        "127.0.0.1:{port}\\",
        "evil.com/",
        "a#",
        "../x",
        "a\nb",
    ],
)
def test_the_adyen_connector_sends_nothing_to_a_host_that_is_not_adyens(production, listener, prefix, caplog):
    """Built directly with a hostile prefix (past every rule): the connector refuses its own URL before sending."""
    hostile = prefix.format(port=listener.port)
    connector = AdyenConnector(api_key="AQE_secret_key_0123", merchant_account="ShopECOM", live_url_prefix=hostile)

    result = connector.authorize(_request())
    captured = connector.capture(processor_reference="993617895204576J", amount=1, currency="EUR", reference="c")

    assert (result.outcome, result.error_code, result.raw_response_code) == (
        Outcome.FAILED,
        "invalid_service_configuration",
        HOST_REFUSED,
    )
    assert captured.outcome is Outcome.FAILED
    assert listener.connections == 0
    assert "AQE_secret_key_0123" not in caplog.text
    assert hostile not in caplog.text


def test_the_adyen_client_checks_every_url_it_calls(production, listener):
    """Even a URL changed after the connector checked its own: the library's client refuses it before sending."""
    connector = AdyenConnector(api_key="AQE_secret_key_0123", merchant_account="ShopECOM", live_url_prefix=LIVE_PREFIX)
    connector._checkout.payments_api.baseUrl = f"https://x@127.0.0.1:{listener.port}/?"

    result = connector.authorize(_request())

    assert (result.outcome, result.raw_response_code) == (Outcome.FAILED, HOST_REFUSED)
    assert listener.connections == 0
    with pytest.raises(HostRefused):
        _Client(xapikey="k")._determine_api_url("live", "https://evil.com/v72/payments")


def test_a_live_url_is_called_as_built(production):
    """Adyen's library would rewrite `-live` to `-test` in the URL of its test platform: the connector's client calls
    Adyen's live endpoint exactly as Adyen documents it."""
    url = f"https://{LIVE_PREFIX}-checkout-live.adyenpayments.com/checkout/v72/payments"

    assert _Client(xapikey="k", platform="test")._determine_api_url("test", url) == url


# --- the attack, replayed through the API on production settings ------------------------------------------------

HOSTILE_PREFIXES = [
    "x@127.0.0.1:{port}/?",
    "evil.com/",
    "127.0.0.1",
    "a\nb",
    "a#",
    "../x",
    "localhost:6379",
    "localhost:{port}",
    "a" * 300,
    "١٢٣",
    " ",
]


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["*.read", "*.write"])


@pytest.fixture
def live_adyen(client, production) -> str:
    payload = {
        "display_name": "Adyen live",
        "payment_service_definition_id": ADYEN.id,
        "fields": [
            {"key": "api_key", "value": "AQE_live_key_0123"},
            {"key": "merchant_account", "value": "ShopECOM"},
            {"key": "live_url_prefix", "value": LIVE_PREFIX},
        ],
        "accepted_currencies": ["EUR"],
        "accepted_countries": ["NL"],
        "position": 1,
    }
    response = client.post("/payment-services", payload, format="json")
    assert response.status_code == 201, response.content
    return str(response.json()["id"])


@pytest.mark.django_db
@pytest.mark.parametrize("prefix", HOSTILE_PREFIXES, ids=range(len(HOSTILE_PREFIXES)))
def test_the_attack_replayed_finds_every_hostile_prefix_refused_and_no_connection(client, live_adyen, listener, prefix):
    hostile = prefix.format(port=listener.port)
    before = PaymentService.objects.values().get(pk=live_adyen)

    refused = client.put(
        f"/payment-services/{live_adyen}", {"fields": [{"key": "live_url_prefix", "value": hostile}]}, format="json"
    )
    created = client.post(
        "/payment-services",
        {
            "display_name": "Adyen again",
            "payment_service_definition_id": ADYEN.id,
            "fields": [
                {"key": "api_key", "value": "AQE_live_key_0123"},
                {"key": "merchant_account", "value": "ShopECOM"},
                {"key": "live_url_prefix", "value": hostile},
            ],
            "accepted_currencies": ["EUR"],
            "accepted_countries": ["NL"],
        },
        format="json",
    )

    assert_error(refused, 400, "/fields/0/value")
    assert_error(created, 400, "/fields/2/value")
    assert PaymentService.objects.values().get(pk=live_adyen) == before
    assert not PaymentService.objects.filter(display_name="Adyen again").exists()
    assert listener.connections == 0


@pytest.mark.django_db
@pytest.mark.parametrize("prefix", HOSTILE_PREFIXES, ids=range(len(HOSTILE_PREFIXES)))
def test_a_hostile_prefix_planted_in_the_database_never_reaches_its_host(client, live_adyen, listener, prefix):
    """A row written before the rule existed, or past the API: the payment routed to it fails, nothing is sent."""
    hostile = prefix.format(port=listener.port)
    service = PaymentService.objects.get(pk=live_adyen)
    PaymentService.objects.filter(pk=live_adyen).update(fields={**service.fields, "live_url_prefix": hostile})
    card = {"method": "card", "number": "4111111111111111", "expiration_date": "03/30", "security_code": "737"}

    paid = client.post(
        "/transactions", {"amount": 5000, "currency": "EUR", "country": "NL", "payment_method": card}, format="json"
    )

    assert paid.status_code == 201, paid.content
    assert listener.connections == 0
    body = paid.json()
    assert (body["status"], body["error_code"], body["raw_response_code"]) == (
        "authorization_failed",
        "invalid_service_configuration",
        "credentials_malformed",
    )
    assert body["payment_service"]["id"] == live_adyen
    assert Transaction.objects.get(pk=body["id"]).status == "authorization_failed"
