"""`POST /digital-wallets/apple/session` against a validation server the test starts: TLS that requires the client's
certificate (signed by the test's own authority, as Apple signs the merchant identity certificate), on a host the test
allows in place of Apple's."""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from digitalwallets.services import digital_wallet_certificate_upload
from digitalwallets.tests.factories import MERCHANT_ID, TestAuthority, register

pytestmark = pytest.mark.django_db

SESSION = {"epochTimestamp": 1, "merchantSessionIdentifier": "SSH0", "signature": "3080", "nonce": "2d18eab4"}


@dataclass
class ValidationServer:
    """What the server was asked, and how it answers: `session` (200), `refuse` (Apple's 400) or `slow`."""

    url: str
    mode: str = "session"
    received: list[dict] = field(default_factory=list)


def _handler(state: ValidationServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            peer = self.connection.getpeercert()
            state.received.append({"path": self.path, "body": body, "peer": peer})
            if state.mode == "slow":
                time.sleep(1.5)
            status, answer = (200, SESSION) if state.mode == "session" else (400, {"statusMessage": "bad"})
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def authority() -> TestAuthority:
    return TestAuthority()


@pytest.fixture
def validation_server(authority, tmp_path, settings) -> Iterator[ValidationServer]:
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = authority.sign(
        key.public_key(), x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]), dns="localhost"
    )
    (tmp_path / "server.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "server.key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    (tmp_path / "ca.pem").write_text(authority.pem)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "server.pem", tmp_path / "server.key")
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(cadata=authority.pem)

    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    state = ValidationServer(url=f"https://localhost:{server.server_address[1]}/paymentservices/startSession")
    server.RequestHandlerClass = _handler(state)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.APPLE_PAY_VALIDATION_HOSTS = ["localhost"]
    settings.APPLE_PAY_CA_BUNDLE = str(tmp_path / "ca.pem")
    settings.APPLE_PAY_TIMEOUT_SECONDS = 5.0
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def client(api_client):
    return api_client(scopes=["digital-wallets.write"])


@pytest.fixture
def wallet(merchant_account, authority):
    wallet = register(merchant_account, merchant_display_name="Acme")
    identity = wallet.keys.get(purpose="apple-merchant-identity")
    digital_wallet_certificate_upload(wallet=wallet, certificate=authority.sign_csr(identity))
    return wallet


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
