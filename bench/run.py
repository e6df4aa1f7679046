"""Benchmark: the API side by side with reference cases, in one run, on one machine (`make bench`).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/payments_bench REDIS_URL=redis://127.0.0.1:6379/7 make bench

Seeds 1,000,000 buyers for one merchant account (once; reruns reuse them), starts gunicorn with the
project's own config (`config/gunicorn.conf.py`, the same workers for every case), drives every case
with wrk in alternating rounds, and prints one table. See docs/performance.md for what each case is.
"""

import argparse
import base64
import datetime
import json
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEEP_OFFSET = 900_000
MERCHANT_ACCOUNT = "default"
SUBSCRIBED_ACCOUNT = "bench-subscribed"


@dataclass
class Case:
    """One endpoint and request, driven by wrk against one server."""

    name: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    method: str = "GET"
    body: str | None = None
    server: str = "main"
    unique_header: str | None = None  # a header wrk fills with a fresh value per request (Idempotency-Key)


@dataclass
class Result:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    bad: int
    app_cpu_ms: float = 0.0  # gunicorn workers' CPU time per request
    db_cpu_ms: float = 0.0  # PostgreSQL backends' CPU time per request

    @property
    def rps(self) -> float:
        return self.requests / self.seconds


# --- environment and fixtures -------------------------------------------------------------------


def server_environment(database_url: str, redis_url: str) -> dict[str, str]:
    """Production settings with throwaway secrets: what `make serve` runs, on loopback."""
    from payments.accounts.keys import generate_private_key, public_pem

    private_key, private_pem = generate_private_key()
    key = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")
    return {
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "CARD_ENCRYPTION_KEYS": f"bench:{key}",
        "CARD_FINGERPRINT_KEY": secrets.token_urlsafe(32),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "BENCH_PEER_VERIFYING_KEY": public_pem(private_key),
        "BENCH_PRIVATE_KEY_PEM": private_pem,
        "LOG_LEVEL": "INFO",  # the servers log every request, as in production
        "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",  # the bench's own receiver
    }


def ensure_database(database_url: str) -> None:
    import psycopg

    url = urlparse(database_url)
    name = url.path.lstrip("/")
    admin_url = url._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def seed_buyers(rows: int) -> None:
    """`rows` buyers one second apart, newest first, in one INSERT ... SELECT (a fixture, so raw SQL)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM buyers_buyer WHERE merchant_account_id = %s", [MERCHANT_ACCOUNT])
        have = cursor.fetchone()[0]
        if have >= rows:
            print(f"  {have:,} buyers already seeded")
            return
        started = time.perf_counter()
        cursor.execute(
            """
            INSERT INTO buyers_buyer (id, merchant_account_id, display_name, external_identifier, account_number,
                                      billing_details, created_at, updated_at)
            SELECT gen_random_uuid(), %(account)s, 'Buyer ' || n,
                   'demo-buyer-' || lpad(n::text, greatest(6, length(n::text)), '0'),
                   CASE WHEN n %% 3 = 0 THEN 'ACC' || lpad(n::text, 8, '0') END,
                   jsonb_build_object('first_name', 'Buyer', 'last_name', n::text,
                                      'email_address', 'buyer' || n || '@example.com',
                                      'address', jsonb_build_object('city', 'London', 'country', 'GB')),
                   now() - make_interval(secs => %(rows)s - n), now() - make_interval(secs => %(rows)s - n)
            FROM generate_series(%(first)s, %(rows)s) AS n
            ON CONFLICT DO NOTHING
            """,
            {"account": MERCHANT_ACCOUNT, "first": have + 1, "rows": rows},
        )
        inserted = cursor.rowcount
        cursor.execute("VACUUM ANALYZE buyers_buyer")
    print(f"  seeded {inserted:,} buyers in {time.perf_counter() - started:.1f}s")


def prepare(rows: int, env: dict[str, str]) -> dict[str, str]:
    """Migrate, seed, create the account, key and peer user; return tokens and deep-page cursors."""
    os.environ.update({**env, "LOG_LEVEL": "WARNING"})  # this process's own requests need no access log
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from payments.accounts.keys import load_private_pem, mint_token, public_pem
    from payments.accounts.services import api_key_register
    from payments.models import MerchantAccount

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # as `make serve` does
    account, _ = MerchantAccount.objects.get_or_create(id=MERCHANT_ACCOUNT, defaults={"display_name": "Bench"})
    private_pem = env["BENCH_PRIVATE_KEY_PEM"]
    api_key_register(public_key_pem=public_pem(load_private_pem(private_pem)), merchant_account=account)
    seed_buyers(rows)
    token = mint_token(private_pem, scopes=["buyers.read", "buyers.write"], expires_in=3600)
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    get_user_model().objects.get_or_create(username=claims["iss"])  # the peer's user lookup finds this row
    fixtures = {"token": token, **deep_cursors()}
    if _routed("gift-card-balances"):
        from giftcards.services import issued_card_create

        card = issued_card_create(merchant_account=account, amount=10_000, currency="USD")
        fixtures["embed_token"] = mint_token(private_pem, scopes=["embed"], expires_in=3600)
        fixtures["balance_body"] = json.dumps({"items": [{"number": card.number, "pin": card.pin}]})
    if _routed("transaction-list"):
        fixtures["transactions_token"] = mint_token(private_pem, scopes=["transactions.write"], expires_in=3600)
        fixtures["transaction_body"] = json.dumps(TRANSACTION)
        fixtures["queries_per_transaction"] = str(_queries_per_create(fixtures["transactions_token"]))
        fixtures.update(subscribed_account())
    return fixtures


def subscribed_account() -> dict[str, str]:
    """A second merchant account with one active webhook subscription (to the bench's receiver) and its own key."""
    from payments.accounts.keys import generate_private_key, mint_token, public_pem
    from payments.accounts.services import api_key_register
    from payments.models import MerchantAccount
    from webhooks.models import WebhookSubscription
    from webhooks.services.subscriptions import webhook_subscription_create

    account, _ = MerchantAccount.objects.get_or_create(id=SUBSCRIBED_ACCOUNT, defaults={"display_name": "Hooked"})
    port = free_port()
    WebhookSubscription.objects.filter(merchant_account=account).delete()
    webhook_subscription_create(merchant_account=account, url=f"http://127.0.0.1:{port}/hook")
    private_key, private_pem = generate_private_key()
    api_key_register(public_key_pem=public_pem(private_key), merchant_account=account)
    token = mint_token(private_pem, scopes=["transactions.write"], expires_in=3600)
    return {"subscribed_token": token, "receiver_port": str(port)}


# What the SDK sends for a card authorization (with its model defaults); 4111... is approved by the sandbox.
TRANSACTION = {
    "amount": 1299,
    "currency": "USD",
    "country": "US",
    "intent": "authorize",
    "payment_method": {
        "method": "card",
        "number": "4111111111111111",
        "expiration_date": f"12/{(datetime.date.today().year + 3) % 100:02d}",
        "security_code": "123",
    },
    "store": False,
    "is_subsequent_payment": False,
    "merchant_initiated": False,
    "async_capture": False,
    "account_funding_transaction": False,
    "allow_partial_authorization": False,
}


def _queries_per_create(token: str) -> int:
    """Database queries of one `POST /transactions` with a new Idempotency-Key, once caches are warm."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {token}")
    counted = 0
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            response = client.post(
                "/transactions", TRANSACTION, content_type="application/json", HTTP_IDEMPOTENCY_KEY=secrets.token_hex(8)
            )
        if response.status_code != 201:
            raise SystemExit(f"POST /transactions answered {response.status_code}: {response.content[:500]!r}")
        counted = len(queries)  # the second: the first also fills the key and account caches
    return counted


def _routed(url_name: str) -> bool:
    """Whether the project serves this endpoint yet (the benchmark grows with the API)."""
    from django.urls import NoReverseMatch, reverse

    try:
        reverse(url_name)
    except NoReverseMatch:
        return False
    return True


def deep_cursors() -> dict[str, str]:
    """Query strings that open each list at the row after DEEP_OFFSET, as its own next links would."""
    from django.conf import settings
    from django.core import signing
    from rest_framework.pagination import Cursor as DrfCursor
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from bench.views import PeerCursorPagination
    from buyers.models import Buyer
    from payments.rest.pagination import Cursor, KeysetCursorPagination

    row = (
        Buyer.objects.filter(merchant_account_id=MERCHANT_ACCOUNT)
        .order_by("-created_at", "-id")
        .values("created_at", "id")[DEEP_OFFSET - 1]
    )
    ours = KeysetCursorPagination()
    ours.signer = signing.Signer(
        key=settings.CURSOR_SIGNING_KEY,
        salt=ours._binding(Request(APIRequestFactory().get("/buyers", {"limit": 20}))),
    )
    peer = PeerCursorPagination()
    peer.base_url = "http://127.0.0.1/bench/peer/buyers"
    peer_url = peer.encode_cursor(DrfCursor(offset=0, reverse=False, position=str(row["created_at"])))
    return {
        "ours_deep": urlencode({"limit": 20, "cursor": ours._encode(Cursor(True, row["created_at"], str(row["id"])))}),
        "peer_deep": urlparse(peer_url).query + "&limit=20",
        "floor_deep": urlencode({"limit": 20, "before": f"{row['created_at'].isoformat()},{row['id']}"}),
    }


# --- the server and the load generator -----------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(
    env: dict[str, str], workers: int, log: Path, ready_path: str = "/readyz"
) -> tuple[subprocess.Popen, str]:
    port = free_port()
    # No recycling of workers during the run: a fresh worker would start with cold caches.
    server_env = {
        **os.environ,
        **env,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": str(workers),
        "WEB_MAX_REQUESTS": "0",
    }
    # The project's config plus a per-worker request count (bench/gunicorn.conf.py).
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "--config", "bench/gunicorn.conf.py"]
    process = subprocess.Popen(
        command, cwd=ROOT, env=server_env, stdout=subprocess.DEVNULL, stderr=log.open("wb"), start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + ready_path, timeout=2) as response:  # noqa: S310 - loopback
                if response.status == 200:
                    return process, base
        except (urllib.error.URLError, ConnectionError):
            pass
        if process.poll() is not None:
            break
        time.sleep(0.5)
    stop_server(process)
    raise SystemExit(f"gunicorn did not become ready; see {log}")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    print("wrk is missing: installing Debian's package")
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "wrk"], check=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    )
    return shutil.which("wrk") or sys.exit("wrk could not be installed")


def _lua_string(value: str) -> str:
    return "[==[" + value + "]==]"


def wrk_script(case: Case) -> str:
    """A wrk script sending the case's request and printing one JSON result line."""
    headers = ", ".join(f"[ {_lua_string(k)} ] = {_lua_string(v)}" for k, v in case.headers.items())
    unique = _lua_string(case.unique_header) if case.unique_header else "nil"
    body = _lua_string(case.body) if case.body is not None else "nil"
    return f"""
local headers = {{ {headers} }}
local unique, body, counter, thread_id = {unique}, {body}, 0, 0
local threads = {{}}
setup = function(thread)
  thread:set("thread_id", #threads + 1)
  table.insert(threads, thread)
end
init = function(args) thread_id = wrk.thread:get("thread_id") end
request = function()
  if unique then
    counter = counter + 1
    headers[unique] = string.format("bench-%d-%d-%d-%d", os.time(), math.random(1000000000), thread_id, counter)
  end
  return wrk.format({_lua_string(case.method)}, nil, headers, body)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {{"requests": %d, "micros": %d, "p50": %d, "p99": %d, "max": %d, "bad": %d}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect + e.read + e.write + e.status + e.timeout))
end
"""


def cpu_seconds(pids: list[str]) -> dict[str, float]:
    """User plus system CPU time of each of these processes so far."""
    seconds = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue  # exited
        seconds[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return seconds


def cpu_spent(before: dict[str, float], pids: list[str]) -> float:
    """CPU seconds these processes spent since `before` (a process started since counts from zero)."""
    return sum(now - before.get(pid, 0.0) for pid, now in cpu_seconds(pids).items())


def _children(pid: int) -> list[str]:
    return subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False).stdout.split()


def _database_backends(database: str) -> list[str]:
    return subprocess.run(
        ["pgrep", "-f", f"postgres: .* {database} "], capture_output=True, text=True, check=False
    ).stdout.split()


def drive(
    wrk: str, server: tuple[subprocess.Popen, str], case: Case, seconds: float, connections: int, scripts: Path
) -> Result:
    process, base = server
    script = scripts / f"{case.name.replace(' ', '_').replace('/', '_')}.lua"
    script.write_text(wrk_script(case))
    load = ["-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "10s"]
    command = [wrk, *load, "-s", str(script), base + case.path]
    # CPU spent per request, by the app and by the database, holds still when other work shares the
    # machine; throughput and latency do not.
    database = urlparse(os.environ["DATABASE_URL"]).path[1:]
    app_before, db_before = cpu_seconds(_children(process.pid)), cpu_seconds(_database_backends(database))
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    line = next((line for line in run.stdout.splitlines() if line.startswith("BENCH_RESULT ")), None)
    if run.returncode or line is None:
        raise SystemExit(f"wrk failed on {case.name}:\n{run.stdout}{run.stderr}")
    data = json.loads(line.removeprefix("BENCH_RESULT "))
    # wrk stops with requests still running on the server: let them finish before the next case starts.
    time.sleep(min(data["max"] / 1e6, 10) + 0.2)
    requests = max(data["requests"], 1)
    return Result(
        requests=data["requests"],
        seconds=data["micros"] / 1e6,
        p50_ms=data["p50"] / 1000,
        p99_ms=data["p99"] / 1000,
        bad=data["bad"],
        app_cpu_ms=1000 * cpu_spent(app_before, _children(process.pid)) / requests,
        db_cpu_ms=1000 * cpu_spent(db_before, _database_backends(database)) / requests,
    )


# --- cases -----------------------------------------------------------------------------------------


def buyer_cases(fixtures: dict[str, str]) -> list[Case]:
    auth = {"Authorization": f"Bearer {fixtures['token']}"}
    return [
        Case("ours", "/buyers?limit=20", auth),
        Case("ours @900k", f"/buyers?{fixtures['ours_deep']}", auth),
        Case("peer", "/bench/peer/buyers?limit=20", auth),
        Case("peer @900k", f"/bench/peer/buyers?{fixtures['peer_deep']}", auth),
        Case("offset peer", "/bench/offset-peer/buyers?limit=20&offset=0", auth),
        Case("offset peer @900k", f"/bench/offset-peer/buyers?limit=20&offset={DEEP_OFFSET}", auth),
        Case("floor", "/bench/floor/buyers?limit=20", {}),
        Case("floor @900k", f"/bench/floor/buyers?{fixtures['floor_deep']}", {}),
        Case("bare floor", "/bare/buyers?limit=20", {}, server="bare"),
        Case("bare floor @900k", f"/bare/buyers?{fixtures['floor_deep']}", {}, server="bare"),
    ]


def transaction_cases(fixtures: dict[str, str]) -> list[Case]:
    """A card authorization through the sandbox connector, each with its own Idempotency-Key."""
    if "transaction_body" not in fixtures:
        return []
    headers = {"Authorization": f"Bearer {fixtures['transactions_token']}", "Content-Type": "application/json"}
    subscribed = {
        "Authorization": f"Bearer {fixtures['subscribed_token']}",
        "Content-Type": "application/json",
        "x-gr4vy-merchant-account-id": SUBSCRIBED_ACCOUNT,
    }
    body, key = fixtures["transaction_body"], "Idempotency-Key"
    return [
        Case("create transaction", "/transactions", headers, "POST", body, unique_header=key),
        Case("create, subscribed", "/transactions", subscribed, "POST", body, unique_header=key),
        Case("write floor", "/bare/transactions", {"Content-Type": "application/json"}, "POST", body, "bare", key),
    ]


def gift_card_cases(fixtures: dict[str, str]) -> list[Case]:
    """One balance check with an embed token, counted by the rate limiter and with limits switched off."""
    if "embed_token" not in fixtures:
        return []
    headers = {"Authorization": f"Bearer {fixtures['embed_token']}", "Content-Type": "application/json"}
    body = fixtures["balance_body"]
    return [
        Case("balances limited", "/gift-cards/balances", headers, "POST", body),
        Case("balances limits off", "/gift-cards/balances", headers, "POST", body, server="limits-off"),
    ]


# --- fair workers --------------------------------------------------------------------------------

# (workers, keep-alive connections): more connections than workers, and many more.
FAIRNESS_LAYOUTS = ((2, 8), (5, 64))
FAIRNESS_TOLERANCE = 0.25  # every worker serves within 25% of the mean
FAIRNESS_WARM_REQUESTS = 20


def worker_counts(path: Path) -> list[int]:
    """Requests served so far by each worker slot (bench/gunicorn.conf.py)."""
    import struct

    data = path.read_bytes()
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


def fairness(
    wrk: str, env: dict[str, str], fixtures: dict[str, str], rounds: int, seconds: float, workdir: Path
) -> list[str]:
    """Drive `GET /buyers?limit=20` with more keep-alive connections than workers; count each worker's share."""
    auth = {"Authorization": f"Bearer {fixtures['token']}"}
    case = Case("fair workers", "/buyers?limit=20", auth)
    lines = [
        "| workers | connections | round | req/s | requests per worker | furthest from the mean |",
        "|---:|---:|---:|---:|---|---:|",
    ]
    worst = 0.0
    for workers, connections in FAIRNESS_LAYOUTS:
        counts_path = workdir / f"counts-{workers}.bin"
        counts_path.write_bytes(bytes(8 * 64))
        counted = {**env, "BENCH_WORKER_COUNTS": str(counts_path)}
        server = start_server(counted, workers, workdir / f"fair-{workers}.log")
        try:
            # Warm every worker (its first requests load code, caches and a database connection) before counting.
            for _ in range(10):
                drive(wrk, server, case, 1, connections, workdir)
                if min(worker_counts(counts_path)[1 : workers + 1]) >= FAIRNESS_WARM_REQUESTS:
                    break
            for round_number in range(rounds):
                before = worker_counts(counts_path)
                result = drive(wrk, server, case, seconds, connections, workdir)
                served = [after - was for after, was in zip(worker_counts(counts_path), before, strict=True)]
                served = [count for index, count in enumerate(served) if 1 <= index <= workers]
                mean = statistics.mean(served)
                spread = max(abs(count - mean) for count in served) / mean if mean else 1.0
                worst = max(worst, spread)
                shares = " / ".join(f"{count:,}" for count in served)
                lines.append(
                    f"| {workers} | {connections} | {round_number + 1} | {result.rps:,.0f} | {shares} | {spread:.0%} |"
                )
                print(f"  fair workers {workers}w/{connections}c round {round_number + 1}: {shares} ({spread:.0%})")
        finally:
            stop_server(server[0])
    verdict = "ok" if worst <= FAIRNESS_TOLERANCE else "MISSED"
    lines.append("")
    lines.append(f"- every worker within {FAIRNESS_TOLERANCE:.0%} of the mean, each round: worst {worst:.0%} {verdict}")
    return lines


# --- webhook deliveries --------------------------------------------------------------------------

WEBHOOK_BACKLOG_CREATES = 100
# Below what one worker delivers even on a busy machine, so the delay is the pipeline's, not a queue's.
WEBHOOK_PACED_CREATES = 40
WEBHOOK_PACE_SECONDS = 0.5


class Receiver:
    """A local webhook receiver: answers 200 at once and notes when each delivery (by its id) arrived."""

    def __init__(self, port: int) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.received: dict[str, float] = {}
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                arrived = time.time()
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                received.setdefault(self.headers["X-Gr4vy-Webhook-Id"], arrived)
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

    from payments.models import OutboxEvent

    OutboxEvent.objects.filter(merchant_account_id=SUBSCRIBED_ACCOUNT).delete()
    DBTaskResult.objects.all().delete()


def _start_workers(env: dict[str, str], count: int, log: Path) -> list[subprocess.Popen]:
    command = [sys.executable, "manage.py", "run_worker", "--no-clock", "--verbosity", "0"]
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
    """Deliveries per second per worker process (a backlog drained by 1, then 2 workers), and the delay from a
    state change (its outbox event's time) to the receiver, with one idle worker and changes 2 a second."""
    from payments.models import OutboxEvent
    from webhooks.models import WebhookDelivery

    def events() -> int:  # one delivery each: the account has one subscription
        return OutboxEvent.objects.filter(merchant_account_id=SUBSCRIBED_ACCOUNT).count()

    receiver = Receiver(int(fixtures["receiver_port"]))
    lines = ["| measure | workers | deliveries | result |", "|---|---:|---:|---:|"]
    try:
        for count in (1, 2):
            _forget_webhook_backlog()
            receiver.received.clear()
            _subscribed_creates(fixtures, WEBHOOK_BACKLOG_CREATES)
            workers = _start_workers(env, count, workdir / "workers.log")
            try:
                receiver.wait_for(events(), timeout=300)
            finally:
                _stop_workers(workers)
            times = sorted(receiver.received.values())
            rate = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else 0.0
            lines.append(f"| backlog drained, per worker process | {count} | {len(times)} | {rate / count:,.0f}/s |")
            print(f"  webhook backlog, {count} worker(s): {len(times)} deliveries, {rate / count:,.0f}/s per worker")

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


# --- report ----------------------------------------------------------------------------------------


@dataclass
class Summary:
    rps: float
    p50_ms: float
    p99_ms: float
    bad: int
    app_cpu_ms: float
    db_cpu_ms: float


def summarise(results: list[Result]) -> Summary:
    """The best round for throughput and latency, the median for CPU per request.

    Other work on the machine (a neighbour's test run, a checkpoint) only ever slows a case down, so the
    best of several rounds is the closest to what the case costs; CPU per request hardly moves with it.
    """
    return Summary(
        rps=max(r.rps for r in results),
        p50_ms=min(r.p50_ms for r in results),
        p99_ms=min(r.p99_ms for r in results),
        bad=sum(r.bad for r in results),
        app_cpu_ms=statistics.median(r.app_cpu_ms for r in results),
        db_cpu_ms=statistics.median(r.db_cpu_ms for r in results),
    )


def table(summaries: dict[str, Summary], references: list[str]) -> str:
    ref_columns = "".join(f" x {name} rps |" for name in references)
    lines = [
        f"| case | req/s | p50 ms | p99 ms |{ref_columns} app CPU ms/req | db CPU ms/req |",
        "|---|---:|---:|---:|" + "---:|" * (len(references) + 2),
    ]
    for name, s in summaries.items():
        ratios = "".join(
            f" {s.rps / summaries[ref].rps:.2f} |" if ref in summaries and summaries[ref].rps else " - |"
            for ref in references
        )
        cpu = f" {s.app_cpu_ms:.2f} | {s.db_cpu_ms:.2f} |"
        lines.append(f"| {name} | {s.rps:,.0f} | {s.p50_ms:.2f} | {s.p99_ms:.2f} |{ratios}{cpu}")
    return "\n".join(lines)


@dataclass
class Target:
    label: str
    value: Callable[[dict[str, Summary]], float]
    ok: Callable[[float], bool]
    needs: tuple[str, ...]


TARGETS = [
    Target("ours / peer req/s >= 1.2", lambda s: s["ours"].rps / s["peer"].rps, lambda v: v >= 1.2, ("ours", "peer")),
    Target(
        "ours / floor req/s >= 0.6", lambda s: s["ours"].rps / s["floor"].rps, lambda v: v >= 0.6, ("ours", "floor")
    ),
    Target(
        "ours / bare floor req/s >= 0.6",
        lambda s: s["ours"].rps / s["bare floor"].rps,
        lambda v: v >= 0.6,
        ("ours", "bare floor"),
    ),
    Target(
        "same, by CPU per request (app + db): bare floor / ours >= 0.6",
        lambda s: _cpu(s["bare floor"]) / _cpu(s["ours"]),
        lambda v: v >= 0.6,
        ("ours", "bare floor"),
    ),
    Target(
        "create transaction / write floor req/s >= 0.5",
        lambda s: s["create transaction"].rps / s["write floor"].rps,
        lambda v: v >= 0.5,
        ("create transaction", "write floor"),
    ),
    Target(
        "create with one active webhook subscription / none req/s >= 0.9",
        lambda s: s["create, subscribed"].rps / s["create transaction"].rps,
        lambda v: v >= 0.9,
        ("create transaction", "create, subscribed"),
    ),
    Target(
        "same, by CPU per request (app + db): none / subscribed >= 0.9",
        lambda s: _cpu(s["create transaction"]) / _cpu(s["create, subscribed"]),
        lambda v: v >= 0.9,
        ("create transaction", "create, subscribed"),
    ),
    Target(
        "same, by CPU per request (app + db): floor / ours >= 0.6",
        lambda s: _cpu(s["floor"]) / _cpu(s["ours"]),
        lambda v: v >= 0.6,
        ("ours", "floor"),
    ),
    Target(
        "ours p50 @900k / first page <= 1.1",
        lambda s: s["ours @900k"].p50_ms / s["ours"].p50_ms,
        lambda v: v <= 1.1,
        ("ours", "ours @900k"),
    ),
    Target(
        "balances limited / limits off req/s >= 0.9",
        lambda s: s["balances limited"].rps / s["balances limits off"].rps,
        lambda v: v >= 0.9,
        ("balances limited", "balances limits off"),
    ),
    Target(
        "offset peer p50 @900k / first page (grows)",
        lambda s: s["offset peer @900k"].p50_ms / s["offset peer"].p50_ms,
        lambda v: True,
        ("offset peer", "offset peer @900k"),
    ),
]


def _cpu(summary: Summary) -> float:
    return summary.app_cpu_ms + summary.db_cpu_ms


def report_targets(summaries: dict[str, Summary]) -> list[str]:
    lines = []
    for target in TARGETS:
        if all(name in summaries for name in target.needs):
            value = target.value(summaries)
            lines.append(f"- {target.label}: {value:.2f} {'ok' if target.ok(value) else 'MISSED'}")
    return lines


# --- main ------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", 2 * os.cpu_count() + 1)))
    parser.add_argument("--only", nargs="*", help="run only the cases with these names")
    args = parser.parse_args()

    database_url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not database_url.startswith(("postgres://", "postgresql://")) or not redis_url:
        sys.exit(__doc__)
    started = time.monotonic()
    wrk = ensure_wrk()
    env = server_environment(database_url, redis_url)
    ensure_database(database_url)
    print("preparing (migrate, seed, fixtures)")
    fixtures = prepare(args.rows, env)
    every_case = buyer_cases(fixtures) + gift_card_cases(fixtures) + transaction_cases(fixtures)
    cases = [case for case in every_case if not args.only or case.name in args.only]
    run_fairness = not args.only or "fair workers" in args.only
    run_webhooks = "subscribed_token" in fixtures and (not args.only or "webhook deliveries" in args.only)

    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    fairness_lines = fairness(wrk, env, fixtures, 3, args.seconds, workdir) if run_fairness else []
    webhook_lines = webhook_deliveries(env, fixtures, workdir) if run_webhooks else []
    # The limiter counts every embed request but, at this budget, never refuses one.
    servers = {}
    if cases:
        servers["main"] = start_server({**env, "RATELIMIT_EMBED": "1000000000/m"}, args.workers, workdir / "main.log")
    if any(case.server == "bare" for case in cases):
        bare = {**env, "DJANGO_SETTINGS_MODULE": "bench.bare_settings"}
        servers["bare"] = start_server(bare, args.workers, workdir / "bare.log", ready_path="/bare/buyers?limit=1")
    if any(case.server == "limits-off" for case in cases):
        servers["limits-off"] = start_server({**env, "RATELIMIT_ENABLE": "false"}, args.workers, workdir / "off.log")
    results: dict[str, list[Result]] = {case.name: [] for case in cases}
    try:
        print(f"warming up {len(cases)} cases")
        for case in cases:
            drive(wrk, servers[case.server], case, 1, args.connections, workdir)
        for round_number in range(args.rounds if cases else 0):
            # Rotate the order each round so no case always runs first, or right after the slowest one.
            shift = round_number % len(cases)
            for case in cases[shift:] + cases[:shift]:
                result = drive(wrk, servers[case.server], case, args.seconds, args.connections, workdir)
                results[case.name].append(result)
                print(
                    f"  round {round_number + 1} {case.name:<20} {result.rps:8,.0f} req/s  p50 {result.p50_ms:7.2f} ms"
                    f"  app CPU {result.app_cpu_ms:5.2f} ms/req"
                )
    finally:
        for process, _ in servers.values():
            stop_server(process)

    summaries = {name: summarise(runs) for name, runs in results.items() if runs}
    print()
    for stage in (fairness_lines, webhook_lines):
        if stage:
            print("\n".join(stage))
            print()
    load = f"wrk -t1 -c{args.connections}, {args.rounds} rounds of {args.seconds:g}s per case"
    print(f"{args.workers} gunicorn workers, {load}; req/s, p50 and p99 from each case's best round, CPU the median")
    print(table(summaries, references=["peer", "floor", "bare floor"]))
    print()
    print("\n".join(report_targets(summaries)))
    if "queries_per_transaction" in fixtures:
        statements = fixtures["queries_per_transaction"]
        print(f"- database statements per POST /transactions (BEGIN, COMMIT and savepoints included): {statements}")
    if any(s.bad for s in summaries.values()):
        print("\nSome responses were errors (non-2xx or socket errors): see", workdir)
    else:
        shutil.rmtree(workdir)  # the servers' logs: a line per request, not worth keeping after a clean run
    print(f"\ntotal {time.monotonic() - started:.0f}s")


if __name__ == "__main__":
    main()
