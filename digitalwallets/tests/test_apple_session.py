"""`POST /digital-wallets/apple/session` against a validation server the test starts: TLS that requires the client's
certificate (signed by the test's own authority, as Apple signs the merchant identity certificate), on a host the test
allows in place of Apple's."""

from __future__ import annotations

import ssl

import httpx
import pytest

from digitalwallets.services import digital_wallet_certificate_upload
from digitalwallets.tests.factories import MERCHANT_ID, register
from digitalwallets.tests.validation import SESSION

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client):
    return api_client(scopes=["digital-wallets.write"])


@pytest.fixture
def wallet(apple_wallet):
    return apple_wallet


def _session(client, url: str, domain: str = "shop.example.com"):
    return client.post("/digital-wallets/apple/session", {"validation_url": url, "domain_name": domain}, format="json")


def test_the_server_requires_a_client_certificate(validation_server, tmp_path):
    with pytest.raises(httpx.HTTPError):
        httpx.post(validation_server.url, json={}, verify=ssl.create_default_context(cafile=tmp_path / "ca.pem"))
    assert validation_server.received == []


def test_apples_session_is_answered_as_apple_gave_it(client, wallet, validation_server):
    response = _session(client, validation_server.url)

    assert response.status_code == 200, response.content
    assert response.json() == SESSION
    (request,) = validation_server.received
    assert request["path"] == "/paymentservices/startSession"
    assert request["body"] == {
        "merchantIdentifier": MERCHANT_ID,
        "displayName": "Acme",
        "initiative": "web",
        "initiativeContext": "shop.example.com",
    }
    # The merchant identity certificate was presented: the server read Apple's merchant identifier from it.
    subject = dict(part[0] for part in request["peer"]["subject"])
    assert subject["userId"] == MERCHANT_ID


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost/paymentservices/startSession",
        "https://apple-pay-gateway.apple.com.evil.example/startSession",
        "https://127.0.0.1/startSession",
        "https://user@localhost/startSession",
        "https://localhost:notaport/startSession",
        "not a url",
    ],
    ids=["http", "suffix", "address", "user", "port", "text"],
)
def test_a_host_that_is_not_apples_is_refused_and_nothing_is_called(client, wallet, validation_server, url):
    response = _session(client, url.replace("localhost/", validation_server.url.split("/")[2] + "/", 1))

    assert response.status_code == 400
    assert response.json()["details"][0]["pointer"] == "/validation_url"
    assert validation_server.received == []


def test_a_domain_the_wallet_does_not_list_is_refused_and_nothing_is_called(client, wallet, validation_server):
    response = _session(client, validation_server.url, domain="evil.example.com")

    assert response.status_code == 400
    assert response.json()["details"][0]["pointer"] == "/domain_name"
    assert validation_server.received == []


def test_apples_refusal_is_a_bad_gateway(client, wallet, validation_server):
    validation_server.mode = "refuse"

    response = _session(client, validation_server.url)

    assert response.status_code == 502
    assert response.json()["code"] == "bad_gateway"
    assert "Apple refused it (HTTP 400)" in response.json()["message"]


def test_no_answer_in_time_is_a_gateway_timeout(client, wallet, validation_server, settings):
    validation_server.mode = "slow"
    settings.APPLE_PAY_TIMEOUT_SECONDS = 0.3

    response = _session(client, validation_server.url)

    assert response.status_code == 504
    assert response.json()["code"] == "gateway_timeout"


def test_no_merchant_identity_certificate_yet_is_refused_and_nothing_is_called(
    client, merchant_account, validation_server
):
    register(merchant_account)

    response = _session(client, validation_server.url)

    assert response.status_code == 400
    assert "has not been uploaded yet" in response.json()["message"]
    assert validation_server.received == []


def test_an_expired_identity_certificate_is_refused_and_nothing_is_called(
    client, merchant_account, authority, validation_server
):
    wallet = register(merchant_account)
    identity = wallet.keys.get(purpose="apple-merchant-identity")
    digital_wallet_certificate_upload(wallet=wallet, certificate=authority.sign_csr(identity, days=-1))

    response = _session(client, validation_server.url)

    assert response.status_code == 400
    assert "has expired" in response.json()["message"]
    assert validation_server.received == []


def test_without_an_apple_pay_wallet_it_is_not_found(client, merchant_account, validation_server):
    response = _session(client, validation_server.url)

    assert response.status_code == 404
    assert validation_server.received == []


def test_an_embed_token_may_open_a_session(api_client, wallet, validation_server):
    client = api_client(scopes=["embed"], embed={"amount": 100, "currency": "USD"})

    assert _session(client, validation_server.url).status_code == 200
