"""Enumeration limits across processes: gunicorn with 3 workers, the test database and one Redis.

Many concurrent requests spread over the workers must admit exactly the budget, because every worker
increments the same Redis counter atomically. Needs PostgreSQL (the workers share the test database)
and Redis (`REDIS_URL`); skipped otherwise. Single-process behaviour is in payments/tests/test_throttling.py.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest
from django.conf import settings
from django.db import connection

from checkout.services import checkout_session_create
from giftcards.services import issued_card_create
from payments.accounts.keys import mint_token
from payments.ratelimits.models import RateLimitEvent
from tests.servers import database_url, free_port

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 5
# Requests fired at once; far more than the budget, so the workers race on the counter.
BURST = 60
THREADS = 24
# Day-long windows, and a subject whose window ends within a minute is traded for a fresh one (see
# `_fresh_budget`): a burst never straddles a window edge.
RATE = f"{LIMIT}/d"
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


@dataclass
class Server:
    url: str
    log: IO[bytes]

    def output(self) -> str:
        """Everything the master and its workers have logged so far."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def request(self, method: str, path: str, body: dict, token: str | None = None) -> tuple[int, dict, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(  # noqa: S310 - the test's own server on loopback
            self.url + path, data=json.dumps(body).encode(), headers=headers, method=method
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
                return response.status, dict(response.headers), _json(response.read())
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), _json(error.read())

    def burst(self, method: str, path: str, body: dict, tokens: list[str | None]) -> list[tuple[int, dict, dict]]:
        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            return list(pool.map(lambda token: self.request(method, path, body, token), tokens))


def _json(raw: bytes) -> dict:
    return json.loads(raw) if raw else {}


@pytest.fixture
def redis_required():
    if "RedisCache" not in settings.CACHES["ratelimit"]["BACKEND"]:
        pytest.skip("needs Redis for the rate-limit cache (set REDIS_URL)")


@pytest.fixture
def start_gunicorn(redis_required, api_key, settings):
    """Start gunicorn -w 3 on a free port, against this test's (committed) database and the same Redis.

    Keyword arguments override its environment. Every server started is stopped before the database is
    flushed: no worker may hold a connection to it then.
    """
    with ExitStack() as stack:

        def start(**overrides: str) -> Server:
            port = free_port()
            env = {
                **{name: value for name, value in os.environ.items() if not name.startswith("GR4VY_")},
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "DATABASE_URL": database_url(connection.settings_dict),
                "REDIS_URL": os.environ["REDIS_URL"],
                "RATELIMIT_EMBED": RATE,
                "RATELIMIT_CHECKOUT_FIELDS": RATE,
                "RATELIMIT_GIFTCARD_PIN_FAILURES": RATE,
                "RATELIMIT_FAIL_OPEN": "false",
                "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
                "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
                "LOG_LEVEL": "WARNING",
                **overrides,
            }
            command = [sys.executable, "-m", "gunicorn", "config.wsgi", "-w", "3", "-b", f"127.0.0.1:{port}"]
            log = stack.enter_context(tempfile.TemporaryFile())
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            stack.callback(_stop, process)
            server = Server(f"http://127.0.0.1:{port}", log)
            _wait_until_serving(server, process)
            return server

        yield start


@pytest.fixture
def gunicorn(start_gunicorn) -> Server:
    return start_gunicorn()


def _stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)


def _wait_until_serving(server: Server, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"gunicorn exited: {server.output()[-2000:]}")
        try:
            with urllib.request.urlopen(server.url + "/healthz", timeout=2):  # noqa: S310
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail("gunicorn did not start serving within 60 seconds")


@pytest.fixture
def mint(private_key_pem):
    return lambda scopes, **claims: mint_token(private_key_pem, scopes=scopes, **claims)


def _fresh_budget(make_subject, spend_one):
    """A subject with a minute or more left in its window, after spending one request of it."""
    for _ in range(20):
        subject = make_subject()
        status, headers, _ = spend_one(subject)
        if status != 429 and int(headers["RateLimit-Reset"]) >= 60:
            return subject
    pytest.fail("no subject with a minute left in its window in 20 tries")


def _assert_exactly(responses, admitted: int, admitted_status: int) -> None:
    statuses = Counter(status for status, _, _ in responses)
    assert statuses == {admitted_status: admitted, 429: len(responses) - admitted}, statuses
    for status, headers, body in responses:
        assert headers["RateLimit-Limit"] == str(LIMIT)
        if status == 429:
            assert body["code"] == "too_many_requests"
            assert headers["RateLimit-Remaining"] == "0"
            assert int(headers["Retry-After"]) >= 1
    remaining = sorted(int(headers["RateLimit-Remaining"]) for status, headers, _ in responses if status != 429)
    assert remaining == list(range(admitted))  # each admitted request saw its own count


# --- embed tokens -----------------------------------------------------------------------------------


@pytest.fixture
def gift_card(merchant_account):
    return issued_card_create(merchant_account=merchant_account, amount=1000, currency="USD")


def _balances_body(card) -> dict:
    return {"items": [{"number": card.number, "pin": card.pin}]}


def test_an_embed_token_gets_exactly_its_budget_across_processes(gunicorn, mint, gift_card):
    body = _balances_body(gift_card)
    token = _fresh_budget(
        lambda: mint(["embed"]), lambda token: gunicorn.request("POST", "/gift-cards/balances", body, token)
    )

    responses = gunicorn.burst("POST", "/gift-cards/balances", body, [token] * BURST)

    _assert_exactly(responses, admitted=LIMIT - 1, admitted_status=200)
    assert RateLimitEvent.objects.filter(subject_kind="embed_token").count() == 1


def test_embed_tokens_have_independent_budgets_across_processes(gunicorn, mint, gift_card):
    body = _balances_body(gift_card)
    tokens = [
        _fresh_budget(
            lambda: mint(["embed"]), lambda token: gunicorn.request("POST", "/gift-cards/balances", body, token)
        )
        for _ in range(2)
    ]

    responses = gunicorn.burst("POST", "/gift-cards/balances", body, tokens * (BURST // 2))

    for token in tokens:
        own = [response for response, sent in zip(responses, tokens * (BURST // 2), strict=True) if sent == token]
        _assert_exactly(own, admitted=LIMIT - 1, admitted_status=200)


def test_a_server_token_is_never_limited_across_processes(gunicorn, mint, gift_card):
    token = mint(["gift-cards.read"])

    responses = gunicorn.burst("POST", "/gift-cards/balances", _balances_body(gift_card), [token] * (10 * LIMIT))

    assert Counter(status for status, _, _ in responses) == {200: 10 * LIMIT}
    assert not any("RateLimit-Limit" in headers for _, headers, _ in responses)


# --- checkout sessions ------------------------------------------------------------------------------------


def test_a_checkout_session_gets_exactly_its_budget_across_processes(gunicorn, mint, merchant_account):
    def fields(session_id, token=None):
        return gunicorn.request("PUT", f"/checkout/sessions/{session_id}/fields", {"payment_method": CARD}, token)

    session_id = _fresh_budget(lambda: str(checkout_session_create(merchant_account=merchant_account).id), fields)
    other = _fresh_budget(lambda: str(checkout_session_create(merchant_account=merchant_account).id), fields)
    # No token, embed tokens and a token pinned to the session all spend the session's one budget.
    senders = [None, mint(["embed"]), mint(["embed"], checkout_session_id=session_id)]

    responses = gunicorn.burst("PUT", f"/checkout/sessions/{session_id}/fields", {"payment_method": CARD}, senders * 20)

    _assert_exactly(responses, admitted=LIMIT - 1, admitted_status=204)
    assert fields(other)[0] == 204  # another session's budget is untouched
    event = RateLimitEvent.objects.get(subject_kind="checkout_session")
    assert (event.subject_label, event.merchant_account_id) == (session_id, "default")


# --- gift card PIN failures ---------------------------------------------------------------------------------


def test_pin_failures_lock_a_card_across_many_embed_tokens_and_processes(gunicorn, mint, gift_card):
    wrong = {"items": [{"number": gift_card.number, "pin": "0" * 8 if gift_card.pin != "0" * 8 else "1" * 8}]}
    right = _balances_body(gift_card)
    before = gunicorn.request("POST", "/gift-cards/balances", right, mint(["embed"]))
    # One guess per token, each token fresh: only the per-card count can stop them.
    guesses = gunicorn.burst("POST", "/gift-cards/balances", wrong, [mint(["embed"]) for _ in range(3 * LIMIT)])

    locked = gunicorn.request("POST", "/gift-cards/balances", right, mint(["embed"]))
    server = gunicorn.request("POST", "/gift-cards/balances", right, mint(["gift-cards.read"]))

    assert before[2]["items"][0]["balance"] == 1000
    assert {status for status, _, _ in guesses} == {200}
    wrong_answer = guesses[0][2]["items"][0]
    assert wrong_answer.get("balance_error_code")
    assert locked[0] == 200
    assert locked[2]["items"][0] == wrong_answer  # exactly what a wrong PIN gets
    assert server[2]["items"][0] == wrong_answer  # the lock is the card's, whoever asks
    event = RateLimitEvent.objects.get(subject_kind="gift_card")
    assert event.subject_label == f"ending {gift_card.number[-4:]}"


# --- the rate-limit cache unreachable ------------------------------------------------------------------


@pytest.mark.parametrize("fail_open", [False, True], ids=["fail-closed", "fail-open"])
def test_with_redis_down_limited_requests_follow_the_fail_mode_and_servers_are_unaffected(
    start_gunicorn, mint, gift_card, fail_open
):
    server = start_gunicorn(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0", RATELIMIT_FAIL_OPEN=str(fail_open))
    body = _balances_body(gift_card)

    limited = server.burst("POST", "/gift-cards/balances", body, [mint(["embed"]) for _ in range(BURST // 2)])
    unlimited = server.burst("POST", "/gift-cards/balances", body, [mint(["gift-cards.read"])] * (BURST // 2))

    expected = 200 if fail_open else 503
    assert Counter(status for status, _, _ in limited) == {expected: BURST // 2}
    assert not any("RateLimit-Limit" in headers for _, headers, _ in limited)
    if not fail_open:
        assert {body["code"] for _, _, body in limited} == {"service_unavailable"}
    assert Counter(status for status, _, _ in unlimited) == {200: BURST // 2}
    # Once per worker that saw the outage, not once per request.
    assert 1 <= server.output().count("Rate-limit cache unreachable") <= 3
