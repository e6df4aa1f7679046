"""The production layout: Debian's nginx with the shipped config/nginx.conf, as a real process, in front of gunicorn
as `make serve` runs it (docs/deploy.md). Only the lines the file marks SITE (addresses, name, certificate) change,
and, where a check waits for a timeout, that timeout is shortened; the test fails if the file loses one of them.

Checked: keep-alive to clients, whole requests read before a worker sees them, the app's body limit, the client's
address and scheme handed on and believed only from the proxy, and nginx's own errors as the JSON envelope."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import ssl

import pytest
from django.conf import settings

from payments.middleware.proxy import client_address
from payments.rest.envelope import CODES
from tests.nginx import NGINX, SITE, Nginx, nginx
from tests.servers import RawResponse, free_port, gunicorn, raw_request

ENVELOPE_KEYS = {"type", "code", "status", "message", "details"}
PRODUCTION = {
    "DJANGO_DEBUG": "false",
    "DJANGO_SECRET_KEY": "n9Qe-nginx-test-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
    "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
    "CARD_ENCRYPTION_KEYS": "k1:" + "A" * 43,
    "CARD_FINGERPRINT_KEY": "ZmluZ2VycHJpbnQta2V5LWZpbmdlcnByaW50LWtleS1m",
    "FORWARDED_ALLOW_IPS": "127.0.0.1",  # where nginx connects from
    "LOG_LEVEL": "INFO",  # the access log names the client's address
    "LOG_FORMAT": "json",
    "WEB_CONCURRENCY": "1",  # one worker: a request that held it would hold every other
    "WEB_TIMEOUT_SECONDS": "120",
}
# A client on another loopback address than nginx's own (the whole of 127/8 is local on Linux).
CLIENT = "127.0.0.3"
OUTSIDER = "127.0.0.2"


def test_nginx_is_installed():
    # `make test` and .ci/run install Debian's nginx where it is missing: this suite never skips the layout.
    assert os.access(NGINX, os.X_OK), "nginx is missing: run 'sudo apt-get install -y nginx', then 'make test'."


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    database = tmp_path_factory.mktemp("nginx-app") / "unused.sqlite3"  # no request here reads a row
    with gunicorn({**PRODUCTION, "DATABASE_URL": f"sqlite:///{database}"}) as server:
        yield server


@pytest.fixture(scope="module")
def proxy(app, tmp_path_factory):
    with nginx(tmp_path_factory.mktemp("nginx"), app.port, client_body_timeout="2s") as running:
        yield running


def _https(proxy: Nginx) -> http.client.HTTPSConnection:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # the test's own certificate
    return http.client.HTTPSConnection(
        "127.0.0.1", proxy.https_port, timeout=30, context=context, source_address=(CLIENT, 0)
    )


def _from(address: str, port: int, data: bytes, *, timeout: float = 30) -> RawResponse:
    """`raw_request` from another loopback address."""
    received = b""
    with socket.socket() as connection:
        connection.settimeout(timeout)
        connection.bind((address, 0))
        connection.connect(("127.0.0.1", port))
        connection.sendall(data)
        while chunk := connection.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return RawResponse(int(status_line.split()[1]), headers, body)


def assert_envelope(response: RawResponse, status: int) -> dict:
    assert response.status == status, response.body[:300]
    assert response.headers["content-type"] == "application/json"
    assert response.headers["x-request-id"]
    body = json.loads(response.body)
    assert set(body) == ENVELOPE_KEYS
    assert (body["type"], body["code"], body["status"]) == ("error", CODES[status], status)
    assert body["message"]
    return body


def _access_lines(app, request_id: str) -> list[dict]:
    lines = [json.loads(line) for line in app.output().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("logger") == "payments.access" and line["request_id"] == request_id]


def test_clients_keep_their_connection_while_each_request_reaches_a_free_worker(app, proxy):
    connection = _https(proxy)
    connection.auto_open = 0  # a closed connection raises instead of quietly opening another
    connection.connect()
    for _ in range(3):
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("Connection", "keep-alive").lower() != "close"
        response.read()
    connection.close()


def test_a_slow_request_body_never_holds_the_only_worker(app, proxy):
    body = b'{"display_name": "' + b"x" * 200 + b'"}'
    head = f"POST /buyers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", proxy.http_port), timeout=30) as slow:
        slow.sendall(head.encode() + body[:10])  # and the rest later: nginx holds it, not the worker

        health = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        answered = raw_request(proxy.http_port, health, timeout=20)

        assert answered.status == 200
        slow.sendall(body[10:])
        assert slow.recv(65536).startswith(b"HTTP/1.1 301")  # the app's own answer: plain HTTP goes to HTTPS


def test_the_body_limit_is_the_apps(app, proxy):
    assert re.search(r"client_max_body_size 1m;", SITE.read_text())
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 1024 * 1024  # API_MAX_BODY_BYTES's default
    connection = _https(proxy)

    def post(size: int) -> tuple[int, dict, str]:
        connection.request("POST", "/buyers", body=b"x" * size, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read()), response.getheader("X-Request-Id")

    at_limit, body, request_id = post(1024 * 1024)
    # The app's answer (no token): nginx let the whole body through; the app logged it.
    assert (at_limit, body["code"]) == (401, "unauthorized")
    assert _access_lines(app, request_id)
    over, body, request_id = post(1024 * 1024 + 1)
    assert (over, body["code"]) == (413, "payload_too_large")
    assert not _access_lines(app, request_id)  # refused by nginx: the app never saw it
    connection.close()


def test_the_scheme_and_client_address_are_handed_on_and_believed_only_from_the_proxy(app, proxy):
    spoofed = b"X-Forwarded-For: 203.0.113.7\r\nX-Forwarded-Proto: https\r\n"
    request = b"GET /buyers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + spoofed + b"\r\n"

    through_https = _https(proxy)
    through_https.request("GET", "/buyers", headers={"X-Forwarded-For": "203.0.113.7"})
    response = through_https.getresponse()
    response.read()
    # HTTPS at nginx is HTTPS to the app (no redirect; the API's 401), and the client is who connected to nginx.
    assert response.status == 401
    [line] = _access_lines(app, response.getheader("X-Request-Id"))
    assert line["client_address"] == CLIENT

    plain = _from(CLIENT, proxy.http_port, request)
    assert plain.status == 301  # plain HTTP at nginx, whatever the client claims: the app sends it to HTTPS
    assert plain.headers["location"].startswith("https://")

    direct = _from(OUTSIDER, app.port, request)
    assert direct.status == 301  # straight to the app from elsewhere: X-Forwarded-Proto is not believed
    [line] = _access_lines(app, direct.headers["x-request-id"])
    assert line["client_address"] == OUTSIDER  # nor X-Forwarded-For


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"get /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
        (b"GET /healthz HTTP/1.1\r\n\r\n", 400),  # HTTP/1.1 without Host
        (b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414),
        (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n", 400),
        (b"POST /buyers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n\r\n{", 413),
    ],
    ids=["bad-method", "no-host", "long-uri", "big-header", "big-body"],
)
def test_what_nginx_refuses_is_the_envelope(proxy, request_bytes, status):
    assert_envelope(raw_request(proxy.http_port, request_bytes), status)


def test_a_body_that_stops_coming_is_dropped_at_nginx_without_a_page(app, proxy):
    # nginx ends a request whose body stops (client_body_timeout, 2 s here) by closing the connection: its 408
    # is logged, never sent, so no HTML page either; and the app never sees the half request.
    before = app.output()
    with socket.create_connection(("127.0.0.1", proxy.http_port), timeout=30) as connection:
        connection.sendall(b"POST /buyers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
        assert connection.recv(65536) == b""
    assert app.output() == before
    assert '"POST /buyers HTTP/1.1"' in proxy.error_log.read_text()  # nginx's log names what it dropped


def test_no_app_server_is_a_502_envelope_and_a_silent_one_a_504(tmp_path):
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    with nginx(tmp_path / "down", free_port()) as down:
        assert_envelope(raw_request(down.http_port, request), 502)
    # Accepts connections (the kernel completes them into the backlog) and never answers.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        with nginx(tmp_path / "silent", silent.getsockname()[1], proxy_read_timeout="1s") as hung:
            assert_envelope(raw_request(hung.http_port, request), 504)


@pytest.mark.parametrize(
    ("remote", "forwarded", "allowed", "client"),
    [
        ("127.0.0.1", "203.0.113.7", "127.0.0.1", "203.0.113.7"),
        ("198.51.100.1", "203.0.113.7", "127.0.0.1", "198.51.100.1"),  # not the proxy: its header is the client's
        ("10.0.0.5", "203.0.113.7, 10.0.0.9", "10.0.0.0/8", "203.0.113.7"),  # two trusted hops
        ("127.0.0.1", "203.0.113.7, 198.51.100.9", "127.0.0.1", "198.51.100.9"),  # the rightmost untrusted hop
        ("127.0.0.1", "not-an-address", "127.0.0.1", "127.0.0.1"),
        ("192.0.2.1", "203.0.113.7", "*", "203.0.113.7"),
        ("::1", "2001:db8::1", "::1", "2001:db8::1"),
    ],
)
def test_the_client_address_is_the_first_hop_no_trusted_proxy_added(remote, forwarded, allowed, client):
    assert client_address(remote, forwarded, allowed) == client
