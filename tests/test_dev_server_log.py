"""`make run`'s development server (`manage.py runserver`) logs no Secure Fields session id and no raw path: its
request lines (`django.server`) name route templates, like the access log, and the suite's log scan reads them.

Runs the server as a real process on a database of its own (the embedded default, as `make run` has it), posts
Secure Fields to it, and scans its output.
"""

import json
import logging
import os
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from types import SimpleNamespace

import pytest

from payments.ops.logging import DevServerRequestFilter
from tests.servers import ROOT, runserver

MAKE_SESSION = (
    "from payments.models import MerchantAccount; from checkout.services import checkout_session_create; "
    "account, _ = MerchantAccount.objects.get_or_create(id='default', defaults={'display_name': 'Default'}); "
    "print(checkout_session_create(merchant_account=account).id)"
)


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True
    )
    return done.stdout


def _send(url: str, method: str, body: bytes | None = None) -> int:
    request = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": "application/json"})  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_development_server_logs_route_templates_never_the_session_id(settings, log_scan, tmp_path):
    env = {
        **{name: value for name, value in os.environ.items() if not name.startswith("GR4VY_")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'dev.sqlite3'}",
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
        "DJANGO_DEBUG": "true",
        "LOG_FORMAT": "plain",
    }
    _manage(env, "migrate", "--no-input", "-v0")
    session = SimpleNamespace(id=uuid.UUID(_manage(env, "shell", "-c", MAKE_SESSION).split()[-1]))
    missing = uuid.uuid4()
    for secret in (session.id, session.id.hex, missing):  # a guess at a session id is as secret in a log
        log_scan.remember("checkout session id", secret)
    card = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}

    with runserver(env, scan=log_scan) as server:
        fields = f"{server.url}/checkout/sessions/{session.id}/fields"
        statuses = [
            _send(fields, "PUT", b'{"payment_method": {"method": "card"}}'),  # 400: logged as a warning
            _send(f"{fields}?session={session.id}", "PUT", b"{}"),  # an unknown query parameter: 400
            _send(
                f"{server.url}/checkout/sessions/{missing}/fields",
                "POST",
                json.dumps({"payment_method": card}).encode(),
            ),
            _send(f"{server.url}/nowhere/{session.id}", "GET"),  # no route: 404
            _send(fields, "PUT", json.dumps({"payment_method": card}).encode()),  # stored: 204
        ]
        output = server.output()

    assert statuses == [400, 400, 404, 404, 204]
    assert str(session.id) not in output
    assert session.id.hex not in output
    assert str(missing) not in output
    assert "4111111111111111" not in output
    assert '"PUT /checkout/sessions/{session_id}/fields HTTP/1.1" 400' in output
    assert '"POST /checkout/sessions/{session_id}/fields HTTP/1.1" 404' in output
    assert '"GET (unmatched path) HTTP/1.1" 404' in output


def _record(message: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("django.server", logging.WARNING, __file__, 1, message, args, None)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "PUT /checkout/sessions/0f8fad5b-d9cb-469f-a165-70867728950e/fields HTTP/1.1",
            "PUT /checkout/sessions/{session_id}/fields HTTP/1.1",
        ),
        ("GET /buyers?search=secret HTTP/1.1", "GET /buyers HTTP/1.1"),
        ("GET /nope/0f8fad5b-d9cb-469f-a165-70867728950e HTTP/1.1", "GET (unmatched path) HTTP/1.1"),
        ("GET /buyers/%00 HTTP/1.1", "GET (unmatched path) HTTP/1.1"),
    ],
    ids=["secure-fields", "query", "unmatched", "escaped-nul"],
)
def test_each_request_line_names_its_route(line, expected):
    record = _record('"%s" %s %s', line, "400", "12")

    DevServerRequestFilter().filter(record)

    assert record.getMessage() == f'"{expected}" 400 12'


def test_a_bad_request_line_quoted_in_a_message_is_templated_too():
    record = _record("code %d, message %s", 400, "Bad request syntax ('GET /checkout/sessions/abc/fields?x=1 x')")

    DevServerRequestFilter().filter(record)

    assert "abc" not in record.getMessage()
    assert "x=1" not in record.getMessage()


def test_other_loggers_are_left_alone():
    record = logging.LogRecord("payments.x", logging.INFO, __file__, 1, "path /buyers/abc", (), None)

    DevServerRequestFilter().filter(record)

    assert record.getMessage() == "path /buyers/abc"
