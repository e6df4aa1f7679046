"""Webhook deliveries under load: a backlog and a paced stream of events, delivered by real workers."""

import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

from bench.fixtures import ROOT, SUBSCRIBED_ACCOUNT, TRANSACTION

WEBHOOK_BACKLOG_CREATES = 100
# Below what one worker delivers even on a busy machine, so the delay is the pipeline's, not a queue's.
WEBHOOK_PACED_CREATES = 40
WEBHOOK_PACE_SECONDS = 0.5
# A receiver that takes this long to answer, as one doing its own work (a database write, a queue) before its 200:
# what a worker's several task loops are for. Against one that answers at once the worker's own CPU is the bound.
SLOW_RECEIVER_SECONDS = 0.1


class Receiver:
    """A local webhook receiver: answers 200 after `delay` seconds (at once unless set; a thread per request, so
    several are answered at once) and notes when each delivery (by its id) arrived."""

    def __init__(self, port: int) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.received: dict[str, float] = {}
        self.delay = 0.0
        received = self.received
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                arrived = time.time()
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                received.setdefault(self.headers["X-Gr4vy-Webhook-Id"], arrived)
                time.sleep(receiver.delay)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.05)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _subscribed_creates(fixtures: dict[str, str], count: int, pace: float = 0.0) -> None:
    """`count` approved card authorizations for the subscribed account, through the project's own view."""
    from django.test import Client

    client = Client(
        HTTP_HOST="127.0.0.1",
        HTTP_AUTHORIZATION=f"Bearer {fixtures['subscribed_token']}",
        HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID=SUBSCRIBED_ACCOUNT,
    )
    for _ in range(count):
        started = time.monotonic()
        key = secrets.token_hex(8)
        client.post("/transactions", TRANSACTION, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key)
        time.sleep(max(0.0, pace - (time.monotonic() - started)))


def _forget_webhook_backlog() -> None:
    """Drop what earlier runs left queued (the create cases run with no worker), so each measure starts empty."""
    from django_tasks_db.models import DBTaskResult

    from payments.outbox.models import OutboxEvent

    OutboxEvent.objects.filter(merchant_account_id=SUBSCRIBED_ACCOUNT).delete()
    DBTaskResult.objects.all().delete()


def _start_workers(env: dict[str, str], count: int, log: Path, loops: int | None = None) -> list[subprocess.Popen]:
    command = [sys.executable, "manage.py", "run_worker", "--no-clock", "--verbosity", "0"]
    if loops is not None:
        command += ["--concurrency", str(loops)]
    return [
        subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=log.open("ab"))
        for _ in range(count)
    ]


def _stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()


def webhook_deliveries(env: dict[str, str], fixtures: dict[str, str], workdir: Path) -> list[str]:
    """Deliveries per second per worker process (a backlog drained by 1, then 2 workers; then by one worker of one
    task loop, then of four, against a receiver that takes `SLOW_RECEIVER_SECONDS` to answer), and the delay from a
    state change (its outbox event's time) to the receiver, with one idle worker and changes 2 a second."""
    from payments.outbox.models import OutboxEvent
    from webhooks.models import WebhookDelivery

    def events() -> int:  # one delivery each: the account has one subscription
        return OutboxEvent.objects.filter(merchant_account_id=SUBSCRIBED_ACCOUNT).count()

    receiver = Receiver(int(fixtures["receiver_port"]))
    lines = ["| measure | workers | deliveries | result |", "|---|---:|---:|---:|"]

    def drain(count: int, loops: int | None = None) -> tuple[int, float]:
        """Deliveries received, and a second per worker process (first receipt to last), draining a fresh backlog."""
        _forget_webhook_backlog()
        receiver.received.clear()
        _subscribed_creates(fixtures, WEBHOOK_BACKLOG_CREATES)
        workers = _start_workers(env, count, workdir / "workers.log", loops)
        try:
            receiver.wait_for(events(), timeout=300)
        finally:
            _stop_workers(workers)
        times = sorted(receiver.received.values())
        return len(times), (len(times) - 1) / (times[-1] - times[0]) / count if len(times) > 1 else 0.0

    try:
        for count in (1, 2):
            received, rate = drain(count)
            lines.append(f"| backlog drained, per worker process | {count} | {received} | {rate:,.0f}/s |")
            print(f"  webhook backlog, {count} worker(s): {received} deliveries, {rate:,.0f}/s per worker")
        receiver.delay = SLOW_RECEIVER_SECONDS
        slow = f"receiver answering in {SLOW_RECEIVER_SECONDS * 1000:.0f} ms"
        try:
            for loops in (1, 4):
                received, rate = drain(1, loops)
                lines.append(f"| backlog drained, {slow}, {loops} task loop(s) | 1 | {received} | {rate:,.0f}/s |")
                print(f"  webhook backlog, {slow}, {loops} loop(s): {received} deliveries, {rate:,.0f}/s")
        finally:
            receiver.delay = 0.0

        _forget_webhook_backlog()
        receiver.received.clear()
        workers = _start_workers(env, 1, workdir / "workers.log")
        try:
            time.sleep(3)  # the worker is up and polling
            _subscribed_creates(fixtures, WEBHOOK_PACED_CREATES, pace=WEBHOOK_PACE_SECONDS)
            receiver.wait_for(events(), timeout=60)
        finally:
            _stop_workers(workers)
        changed = dict(
            WebhookDelivery.objects.filter(pk__in=list(receiver.received)).values_list("pk", "event__created_at")
        )
        delays = sorted(1000 * (receiver.received[str(pk)] - at.timestamp()) for pk, at in changed.items())
        if delays:
            p50, p99 = delays[len(delays) // 2], delays[min(len(delays) - 1, int(len(delays) * 0.99))]
            lines.append(f"| change to receipt, p50 / p99 | 1 | {len(delays)} | {p50:,.0f} / {p99:,.0f} ms |")
            print(f"  webhook delay: p50 {p50:,.0f} ms, p99 {p99:,.0f} ms over {len(delays)} deliveries")
    finally:
        receiver.close()
        _forget_webhook_backlog()
    return lines
