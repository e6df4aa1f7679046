"""Nothing lost when processes die: on PostgreSQL + Redis, two worker processes deliver, one is killed (SIGKILL)
in the middle of a delivery, and the process that made the changes is killed right after its commit. Every
event still reaches the receiver, and no delivery is ever in flight twice at once. One worker process sends as
many deliveries at once as its concurrency allows, and no more."""

import os
import signal
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.db import connection

from tests.servers import ROOT, database_url
from transactions.tests.factories import TransactionFactory
from webhooks.models import DeliveryState, WebhookAttempt, WebhookDelivery
from webhooks.tests.factories import subscription_for
from webhooks.tests.receiver import running_receiver

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

CHANGER = """
import django, sys, time
django.setup()
from transactions.models import Transaction
from transactions.services.actions import transaction_capture
from transactions.services.state import SYSTEM
for txn in Transaction.objects.filter(status="authorization_succeeded"):
    transaction_capture(txn=txn, actor=SYSTEM)
print("committed", flush=True)
time.sleep(60)
"""


@pytest.fixture
def environment(settings):
    if "RedisCache" not in settings.CACHES["default"]["BACKEND"]:
        pytest.skip("needs Redis (set REDIS_URL)")
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    return {
        **{name: value for name, value in os.environ.items() if not name.startswith("GR4VY_")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": os.environ["REDIS_URL"],
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
        "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
        "WEBHOOK_TIMEOUT_SECONDS": "5",
        # Short enough for a test, longer than an attempt: a dead worker's delivery is free again after 6 s.
        "WEBHOOK_LEASE_SECONDS": "6",
        "WEBHOOK_SWEEP_SECONDS": "1",
        "WEBHOOK_SWEEP_GRACE_SECONDS": "0.5",
        "WORKER_POLL_SECONDS": "0.05",
        "LOG_LEVEL": "WARNING",
    }


def _start(command: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", *command], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


def _wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def test_every_event_is_delivered_when_a_worker_and_the_changing_process_are_killed(environment, merchant_account):
    transactions = [TransactionFactory(merchant_account=merchant_account, authorized=True) for _ in range(3)]
    with running_receiver(behaviour="block-first") as receiver:
        subscription_for(merchant_account, receiver.url)
        workers = [_start(["run_worker", "--no-startup-delay", "--verbosity", "0"], environment) for _ in range(2)]
        changer = _start(["shell", "--verbosity", "0", "-c", CHANGER], environment)
        try:
            lines = iter(changer.stdout.readline, b"")
            assert b"committed\n" in lines  # reads up to that line (or fails at the end of the output)
            os.kill(changer.pid, signal.SIGKILL)  # right after its commit: nothing after it ever runs
            changer.wait(10)

            assert receiver.arrived.wait(30), "no delivery reached the receiver"
            blocked = WebhookDelivery.objects.get(pk=receiver.received[0].headers["X-Gr4vy-Webhook-Id"])
            pid = int(blocked.leased_by.rsplit(":", 1)[1])
            assert pid in {worker.pid for worker in workers}
            os.kill(pid, signal.SIGKILL)  # mid-delivery: the receiver holds its request
            receiver.release.set()

            _wait_for(
                lambda: WebhookDelivery.objects.filter(state=DeliveryState.DELIVERED).count() == 2 * len(transactions),
                60,
                "every delivery to be delivered",
            )
        finally:
            if changer.poll() is None:
                changer.kill()
            for worker in workers:
                if worker.poll() is None:
                    worker.send_signal(signal.SIGTERM)
                    worker.wait(30)

    delivered = {str(delivery.pk) for delivery in WebhookDelivery.objects.all()}
    received = [item.headers["X-Gr4vy-Webhook-Id"] for item in receiver.received]
    assert set(received) == delivered
    assert received.count(str(blocked.pk)) == 2  # sent again after its worker died
    assert receiver.max_in_flight == 1
    # One body per delivery: the blocked one arrived twice, and it may be any of the six (two workers race for them).
    bodies = {item.headers["X-Gr4vy-Webhook-Id"]: item.json for item in receiver.received}
    names = sorted(body["name"] for body in bodies.values())
    assert names == ["transaction.capture-pending"] * 3 + ["transaction.captured"] * 3
    assert settings.DATABASES  # the workers used the test database: the deliveries above are its rows


def test_one_worker_sends_several_deliveries_at_once_up_to_its_concurrency_and_each_once(environment, merchant_account):
    transactions = [TransactionFactory(merchant_account=merchant_account, authorized=True) for _ in range(4)]
    environment = {**environment, "WEBHOOK_TIMEOUT_SECONDS": "20", "WEBHOOK_LEASE_SECONDS": "30"}
    with running_receiver(behaviour="block") as receiver:  # holds every request until released
        subscription_for(merchant_account, receiver.url)
        worker = _start(["run_worker", "--no-startup-delay", "--concurrency", "3", "--verbosity", "0"], environment)
        changer = _start(["shell", "--verbosity", "0", "-c", CHANGER], environment)
        try:
            _wait_for(lambda: receiver.sending == 3, 60, "three deliveries held by the receiver at once")
            time.sleep(1)  # room for a fourth to arrive, were the bound not kept
            assert receiver.sending == 3
            assert WebhookDelivery.objects.filter(leased_until__isnull=False).count() == 3
            receiver.release.set()
            _wait_for(
                lambda: WebhookDelivery.objects.filter(state=DeliveryState.DELIVERED).count() == 2 * len(transactions),
                60,
                "every delivery to be delivered",
            )
        finally:
            changer.kill()
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(30) == 0  # the first SIGTERM lets each loop finish, then the process exits

    received = [item.headers["X-Gr4vy-Webhook-Id"] for item in receiver.received]
    assert sorted(received) == sorted(str(pk) for pk in WebhookDelivery.objects.values_list("pk", flat=True))
    assert receiver.max_sending == 3
    assert receiver.max_in_flight == 1
    senders = set(WebhookAttempt.objects.values_list("worker", flat=True))
    assert {sender.rsplit(":", 1)[1] for sender in senders} == {str(worker.pid)}  # one process sent them all
