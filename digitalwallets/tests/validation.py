"""A validation server standing in for Apple's: TLS that requires the client's certificate (signed by the test's own
authority, as Apple signs the merchant identity certificate), on a host the test allows in place of Apple's; and an
Apple Pay wallet whose merchant identity certificate that authority signed."""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.test import override_settings

from digitalwallets.services import digital_wallet_certificate_upload
from digitalwallets.tests.factories import TestAuthority, register

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


@contextmanager
def serving(authority: TestAuthority, directory: Path) -> Iterator[ValidationServer]:
    """A validation server on localhost for as long as the block runs, its certificate and the client's signed by
    `authority`, with the settings that let the server call it (and trust it) for that long."""
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = authority.sign(
        key.public_key(), x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]), dns="localhost"
    )
    (directory / "server.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (directory / "server.key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    (directory / "ca.pem").write_text(authority.pem)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(directory / "server.pem", directory / "server.key")
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(cadata=authority.pem)

    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    state = ValidationServer(url=f"https://localhost:{server.server_address[1]}/paymentservices/startSession")
    server.RequestHandlerClass = _handler(state)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with override_settings(
            APPLE_PAY_VALIDATION_HOSTS=["localhost"],
            APPLE_PAY_CA_BUNDLE=str(directory / "ca.pem"),
            APPLE_PAY_TIMEOUT_SECONDS=5.0,
        ):
            yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def validation_server(authority, tmp_path) -> Iterator[ValidationServer]:
    with serving(authority, tmp_path) as state:
        yield state


@pytest.fixture
def apple_wallet(merchant_account, authority):
    """An Apple Pay wallet for shop.example.com whose merchant identity certificate `authority` signed."""
    wallet = register(merchant_account, merchant_display_name="Acme")
    identity = wallet.keys.get(purpose="apple-merchant-identity")
    digital_wallet_certificate_upload(wallet=wallet, certificate=authority.sign_csr(identity))
    return wallet
