"""What gunicorn answers itself, before Django sees a request: always the JSON envelope, never its HTML page.

A real gunicorn with the project's config file (config/gunicorn.conf.py: its worker class and limits) on a free
port of 127.0.0.1, driven with raw sockets so nothing tidies the bytes up. Realistic requests fit the limits;
everything beyond them, and every request gunicorn cannot parse, is a 4xx envelope; the server's log names
the kind of error, never the request line or a header value.

These requests never reach the database, so they run on either configuration; the chunked bodies that do
(a buyer created through gunicorn) need PostgreSQL, which the workers share with the test.
"""

import json
import uuid

import pytest
from django.db import connection

from buyers.models import Buyer
from payments.tests.assertions import ENVELOPE_KEYS
from tests.servers import gunicorn, raw_request

HOST = b"Host: 127.0.0.1\r\n"
SECRET = str(uuid.uuid4())  # stands for a checkout session id: it must never reach the server's log
ERRORS = [
    ("header-over-16KB", b"GET /healthz HTTP/1.1\r\n" + HOST + b"X-Big: " + b"a" * 20_000 + b"\r\n\r\n", 431),
    ("101-headers", b"GET /healthz HTTP/1.1\r\n" + HOST + b"X-A: b\r\n" * 101 + b"\r\n", 431),
    ("request-line-over-8KB", b"GET /" + b"a" * 9_000 + b" HTTP/1.1\r\n" + HOST + b"\r\n", 414),
    (
        "nul-in-header-value",
        b"GET /healthz HTTP/1.1\r\n" + HOST + b"X-Token: " + SECRET.encode() + b"\x00\r\n\r\n",
        400,
    ),
    ("nul-in-header-name", b"GET /healthz HTTP/1.1\r\n" + HOST + b"X-\x00: 1\r\n\r\n", 400),
    ("control-char-in-header", b"GET /healthz HTTP/1.1\r\n" + HOST + b"X-A: a\x01b\r\n\r\n", 400),
    (
        "nul-in-path",
        b"GET /checkout/sessions/" + SECRET.encode() + b"/\x00fields HTTP/1.1\r\n" + HOST + b"\r\n",
        400,
    ),
    ("nul-in-query", b"GET /buyers?search=" + SECRET.encode() + b"\x00 HTTP/1.1\r\n" + HOST + b"\r\n", 400),
    ("space-in-path", b"GET /checkout/sessions/" + SECRET.encode() + b" x HTTP/1.1\r\n" + HOST + b"\r\n", 400),
    ("garbage-request-line", b"GARBAGE\r\n\r\n", 400),
    ("invalid-method", b"G(T /healthz HTTP/1.1\r\n" + HOST + b"\r\n", 400),
    ("unknown-http-version", b"GET /healthz HTTP/7.1\r\n" + HOST + b"\r\n", 400),
    ("obsolete-line-folding", b"GET /healthz HTTP/1.1\r\n" + HOST + b"X-A: a\r\n  b\r\n\r\n", 400),
    (
        "length-and-chunked",
        b"POST /buyers HTTP/1.1\r\n" + HOST + b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
    ),
    ("negative-length", b"POST /buyers HTTP/1.1\r\n" + HOST + b"Content-Length: -1\r\n\r\n", 400),
    (
        "bad-chunk-size",
        b"POST /buyers HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        400,
    ),
    ("unknown-transfer-coding", b"POST /buyers HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: gzip\r\n\r\n", 400),
]
FITS = [
    (
        "header-of-10KB",
        b"GET /healthz HTTP/1.1\r\n" + HOST + b"X-Big: " + b"a" * 10_240 + b"\r\nConnection: close\r\n\r\n",
    ),
    (
        "url-of-5000-characters",
        b"GET /healthz?pad=" + b"a" * 5_000 + b" HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n",
    ),
    (
        "cookies-and-a-long-token",
        b"GET /healthz HTTP/1.1\r\n"
        + HOST
        + b"Cookie: "
        + b"; ".join(b"c%d=%s" % (i, b"v" * 200) for i in range(30))
        + b"\r\nAuthorization: Bearer "
        + b"e" * 2_000
        + b"\r\nConnection: close\r\n\r\n",
    ),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # No request here touches the database; a file of its own keeps the workers off the test's.
    database = tmp_path_factory.mktemp("server") / "unused.sqlite3"
    with gunicorn({"DATABASE_URL": f"sqlite:///{database}", "WEB_CONCURRENCY": "2"}) as running:
        yield running


def assert_envelope(response, status: int) -> dict:
    assert response.status == status, response.body[:300]
    assert response.headers["content-type"] == "application/json"
    assert response.headers["x-request-id"]
    body = json.loads(response.body)
    assert set(body) == ENVELOPE_KEYS
    assert (body["type"], body["status"]) == ("error", status)
    assert body["message"]
    return body


@pytest.mark.parametrize(("request_bytes", "status"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_what_gunicorn_refuses_is_a_4xx_envelope(server, log_scan, request_bytes, status):
    logged_before = len(server.output())

    response = raw_request(server.port, request_bytes)

    assert_envelope(response, status)
    logged = server.output()[logged_before:]
    # One line, tied to the answer by its request id, naming the kind of error: never the request line or a header.
    assert f"[{response.headers['x-request-id']}]" in logged
    assert SECRET not in logged
    log_scan.add_lines(logged.splitlines(), source="gunicorn")


@pytest.mark.parametrize("request_bytes", [f[1] for f in FITS], ids=[f[0] for f in FITS])
def test_realistic_requests_fit_the_limits(server, request_bytes):
    response = raw_request(server.port, request_bytes)

    assert response.status == 200, response.body[:300]
    assert json.loads(response.body) == {"status": "ok"}


def test_an_unmatched_long_path_is_djangos_404_envelope_and_is_not_logged(server):
    response = raw_request(server.port, b"GET /" + SECRET.encode() + b"a" * 5_000 + b" HTTP/1.1\r\n" + HOST + b"\r\n")

    assert assert_envelope(response, 404)["code"] == "not_found"
    assert SECRET not in server.output()


def test_a_chunked_body_over_the_limit_is_a_413_before_authentication(server):
    chunk = b"x" * (2 * 1024 * 1024)
    request_bytes = (
        b"POST /buyers HTTP/1.1\r\n"
        + HOST
        + b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"%x\r\n" % len(chunk)
        + chunk
        + b"\r\n0\r\n\r\n"
    )

    assert_envelope(raw_request(server.port, request_bytes), 413)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_chunked_body_through_gunicorn_is_read_or_refused_never_dropped(merchant_account, token_for, settings):
    env = {
        "DATABASE_URL": _database_url(),
        "WEB_CONCURRENCY": "1",
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
    }
    token = token_for(["buyers.write"]).encode()
    body = json.dumps({"display_name": "Chunky", "external_identifier": "chunked-1"}).encode()
    halves = [body[:10], body[10:]]  # two chunks: the body is reassembled, not just its first piece
    request_bytes = (
        b"POST /buyers HTTP/1.1\r\n"
        + HOST
        + b"Authorization: Bearer "
        + token
        + b"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + b"".join(b"%x\r\n%s\r\n" % (len(half), half) for half in halves)
        + b"0\r\n\r\n"
    )
    big = b'{"display_name": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    too_big = request_bytes.split(b"\r\n\r\n")[0] + b"\r\n\r\n" + b"%x\r\n%s\r\n0\r\n\r\n" % (len(big), big)

    with gunicorn(env) as server:
        created = raw_request(server.port, request_bytes)
        refused = raw_request(server.port, too_big)

    assert created.status == 201, created.body[:300]
    buyer = Buyer.objects.get()
    assert (buyer.display_name, buyer.external_identifier) == ("Chunky", "chunked-1")
    assert_envelope(refused, 413)
    assert Buyer.objects.count() == 1


def _database_url() -> str:
    from tests.servers import database_url

    return database_url(connection.settings_dict)
