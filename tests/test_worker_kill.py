"""Crash safety with real processes: gunicorn workers SIGKILLed in the middle of transaction creates.

Three workers, one request each (a sync worker serves one connection at a time), on the test's PostgreSQL database.
Every create pays 400 of 1500 with a gift card and the rest with a sandbox card that takes
SANDBOX_SLOW_CARD_SECONDS to answer: `4000000000000259` waits before deciding (a kill leaves no decision at the
processor), `4000000000000267` decides at once and waits before answering (a kill leaves an approval nobody heard).
Each create has its own Idempotency-Key. While all three are inside the authorization, every worker is killed by
PID.

Then: a retry within the lease is a 409 (the request might still be alive); after the lease, the retry resumes
the create and completes it exactly once. For the second round nobody retries: the recovery command resolves
them, and a late retry answers what it recorded. In the end no transaction is pending, every authorization was
asked of the processor at most once, and a gift card keeps its 400 only where the processor approved.
"""

import io
import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from giftcards.models import IssuedGiftCard, LedgerEntry
from giftcards.services import IssuedCardSecret, issued_card_create
from payments.accounts.keys import mint_token
from payments.connectors.models import SandboxOperation
from payments.rest.models import IdempotencyRecord
from tests.servers import database_url, gunicorn
from transactions.models import PENDING_STATUSES, Transaction, TransactionStatus

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKERS = 3
SLOW_SECONDS = 3
TIMEOUT_SECONDS = 4
# Longer than the longest a request may run (2 x timeout + 5): the system check's own rule.
LEASE_SECONDS = 2 * TIMEOUT_SECONDS + 6
SLOW_TO_DECIDE = "4000000000000259"
SLOW_TO_ANSWER = "4000000000000267"
S = TransactionStatus


@pytest.fixture
def server(api_key):
    env = {
        "DATABASE_URL": database_url(connection.settings_dict),
        "WEB_CONCURRENCY": str(WORKERS),
        "WEB_TIMEOUT_SECONDS": str(TIMEOUT_SECONDS),
        "IDEMPOTENCY_KEY_LEASE_SECONDS": str(LEASE_SECONDS),
        "PENDING_TRANSACTION_RECOVERY_SECONDS": str(LEASE_SECONDS),
        "SANDBOX_SLOW_CARD_SECONDS": str(SLOW_SECONDS),
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
    }
    with gunicorn(env) as running:
        yield running


@pytest.fixture
def token(private_key_pem, api_key) -> str:
    return mint_token(private_key_pem, scopes=["transactions.read", "transactions.write"])


def create(server, token: str, key: str, card: IssuedCardSecret, number: str) -> tuple[int, dict]:
    """POST /transactions; (0, {}) when the connection died with the worker."""
    body = {
        "amount": 1500,
        "currency": "USD",
        "payment_method": {"method": "card", "number": number, "expiration_date": "12/39", "security_code": "123"},
        "gift_cards": [{"number": card.number, "pin": card.pin, "amount": 400}],
    }
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Idempotency-Key": key}
    request = urllib.request.Request(  # noqa: S310 - the test's own server on loopback
        server.url + "/transactions", data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    except (ConnectionError, urllib.error.URLError, OSError):
        return 0, {}


def wait_for(condition, what: str, seconds: float = 60, interval: float = 0.05) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(interval)


def kill_mid_authorization(server, token: str, orders: list[tuple[str, IssuedCardSecret, str]]) -> list[tuple]:
    """Send the creates at once; SIGKILL every worker while each is inside its authorization."""
    answers: list[tuple | None] = [None] * len(orders)
    keys = [key for key, _, _ in orders]

    def send(index: int) -> None:
        answers[index] = create(server, token, *orders[index])

    threads = [threading.Thread(target=send, args=(index,)) for index in range(len(orders))]
    for thread in threads:
        thread.start()
    deciders = sum(number == SLOW_TO_ANSWER for _, _, number in orders)
    wait_for(
        lambda: _processing(keys) == len(orders) and _decided(keys) == deciders,
        "every create to be inside its authorization",
    )
    workers = server.worker_pids()
    assert len(workers) == WORKERS
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    for thread in threads:
        thread.join(timeout=60)
    return answers


def _records(keys: list[str]):
    return IdempotencyRecord.objects.filter(key__in=keys)


def _processing(keys: list[str]) -> int:
    reserved = _records(keys).values_list("reserved_id", flat=True)
    return Transaction.objects.filter(pk__in=reserved, status=S.PROCESSING).count()


def _decided(keys: list[str]) -> int:
    reserved = [str(pk) for pk in _records(keys).values_list("reserved_id", flat=True) if pk]
    return SandboxOperation.objects.filter(reference__in=reserved).count()


def expected_status(number: str) -> str:
    return S.AUTHORIZATION_SUCCEEDED if number == SLOW_TO_ANSWER else S.AUTHORIZATION_FAILED


def test_killed_workers_mid_create_every_key_completes_exactly_once(
    server, token, merchant_account, log_scan, settings
):
    settings.PENDING_TRANSACTION_RECOVERY_SECONDS = LEASE_SECONDS  # as the servers have it (this runs the command)
    numbers = [SLOW_TO_DECIDE, SLOW_TO_ANSWER, SLOW_TO_DECIDE, SLOW_TO_ANSWER, SLOW_TO_DECIDE, SLOW_TO_ANSWER]
    orders = [
        (f"order-{index}", issued_card_create(merchant_account=merchant_account, amount=1000, currency="USD"), number)
        for index, number in enumerate(numbers)
    ]
    retried, recovered = orders[:3], orders[3:]

    # Round 1: killed, then the client retries with the same keys.
    killed = kill_mid_authorization(server, token, retried)
    assert [status for status, _ in killed] == [0, 0, 0]  # no answer: the workers died
    assert [balance(card) for _, card, _ in retried] == [600, 600, 600]  # the gift card parts are held
    within_lease = [create(server, token, *order) for order in retried]
    assert [status for status, _ in within_lease] == [409, 409, 409]
    answers = [retry_after_the_lease(server, token, order) for order in retried]

    # Round 2: killed, nobody retries; the recovery command resolves them once no request can be working on them.
    assert [status for status, _ in kill_mid_authorization(server, token, recovered)] == [0, 0, 0]
    keys = [key for key, _, _ in recovered]
    assert not recover(keys)  # too young: their requests might still be running
    wait_for(lambda: recover(keys), "the recovery command to resolve them", LEASE_SECONDS + 30, interval=0.5)
    assert [balance(card) for _, card, number in recovered] == [
        1000 if number == SLOW_TO_DECIDE else 600 for _, _, number in recovered
    ]
    answers += [retry_after_the_lease(server, token, order) for order in recovered]

    for (key, card, number), (status, body) in zip(orders, answers, strict=True):
        record = IdempotencyRecord.objects.get(key=key)
        assert (status, body["id"], body["status"]) == (201, str(record.reserved_id), expected_status(number)), key
        assert (record.state, record.attempts) == ("completed", 2), key
        expected = 600 if number == SLOW_TO_ANSWER else 1000  # no money held for a card part that never happened
        assert balance(card) == expected, key
        last = LedgerEntry.objects.filter(card_id=card.card.pk).order_by("created_at", "id").last()
        assert last.balance_after == expected, key
    assert Transaction.objects.count() == len(orders)  # exactly one per key
    assert not Transaction.objects.filter(status__in=PENDING_STATUSES).exists()
    # The processor was asked once per create: the slow-to-answer cards decided once each, the others never.
    assert SandboxOperation.objects.filter(operation="authorization").count() == numbers.count(SLOW_TO_ANSWER)
    log_scan.add_lines(server.output().splitlines(), source="gunicorn")


def balance(card) -> int:
    return IssuedGiftCard.objects.get(pk=card.card.pk).balance


def retry_after_the_lease(server, token: str, order) -> tuple[int, dict]:
    """The key retried until its lease is over (409s until then), bounded well past the lease."""
    deadline = time.monotonic() + LEASE_SECONDS + 30
    while (answer := create(server, token, *order))[0] == 409 and time.monotonic() < deadline:
        time.sleep(0.5)
    return answer


def recover(keys: list[str]) -> bool:
    """Run the recovery command; True once none of these keys' transactions is pending."""
    call_command("recover_transactions", stdout=io.StringIO())
    reserved = _records(keys).values_list("reserved_id", flat=True)
    return not Transaction.objects.filter(pk__in=reserved, status__in=PENDING_STATUSES).exists()


def test_a_request_running_past_the_timeout_gets_its_worker_replaced(api_key, token, merchant_account):
    # The lease above relies on this bound: the sync worker heartbeats only between requests, so gunicorn
    # replaces a worker whose request runs past the timeout.
    env = {
        "DATABASE_URL": database_url(connection.settings_dict),
        "WEB_CONCURRENCY": "1",
        "WEB_TIMEOUT_SECONDS": "2",
        "SANDBOX_SLOW_CARD_SECONDS": "120",  # far longer than the client waits below
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
    }
    card = issued_card_create(merchant_account=merchant_account, amount=1000, currency="USD")
    with gunicorn(env) as server:
        [worker] = server.worker_pids()

        status, answer = create(server, token, "slow-1", card, SLOW_TO_DECIDE)

        wait_for(lambda: server.worker_pids() not in ([], [worker]), "a new worker")
        output = server.output()
    # Answered long before the sandbox would have decided, and not by a 60 s client timeout: the worker was
    # stopped, told the client in the envelope, and was replaced.
    assert status == 500
    assert answer["code"] == "server_error"
    assert "time limit" in answer["message"]
    assert f"WORKER TIMEOUT (pid:{worker})" in output
    assert Transaction.objects.get().status == S.PROCESSING  # left for sync and recovery
