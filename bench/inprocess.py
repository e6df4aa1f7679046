"""App CPU per request without HTTP in the way: each case's request sent many times through Django's test client
in this process, its CPU time (`time.process_time()`) divided by the requests. Load from other work on the machine
moves this figure far less than throughput; the database's own work is not in it (it runs in PostgreSQL's
process), only what this process spends sending queries and reading rows.

Each case's requests are sent in passes, the cases taking turns, and its figure is the median pass: on a shared machine
a burst of other work inflates the CPU time of whatever runs through it, and lands in one pass instead of in a whole
case. The bare floors are called as plain view functions (no middleware, no DRF), as their own server calls them.
`--profile CASE` prints where that case's time goes (cProfile, by own time and by cumulative time).
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import secrets
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.fixtures import SUBSCRIBED_ACCOUNT, TRANSACTION

Send = Callable[[], int]
# Issue 48's target for `POST /transactions`, set on the machine it measured (docs/performance.md says how this
# machine compares).
CREATE_TARGET_MS = 5.0
# The floor each case is compared with: the same work without the framework (`bare floor` unless named here; a page
# of transactions has none).
_FLOORS = {
    "create transaction": "write floor",
    "create, subscribed": "write floor",
    "write floor": "write floor",
    "transaction list": "",
}
# Each case's requests are sent in this many passes, the cases taking turns; its figure is the median pass.
PASSES = 5


@dataclass
class InProcessCase:
    name: str
    send: Send


def _cases(fixtures: dict[str, str]) -> list[InProcessCase]:
    from django.test import Client, RequestFactory

    from bench.bare import bare_buyers, bare_transaction_create

    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {fixtures['token']}")
    factory = RequestFactory(HTTP_HOST="127.0.0.1")
    cases = [
        InProcessCase("ours", lambda: client.get("/buyers", {"limit": 20}).status_code),
        InProcessCase("peer", lambda: client.get("/bench/peer/buyers", {"limit": 20}).status_code),
        InProcessCase("floor", lambda: client.get("/bench/floor/buyers", {"limit": 20}).status_code),
        InProcessCase("bare floor", lambda: bare_buyers(factory.get("/bare/buyers", {"limit": 20})).status_code),
    ]
    if "transactions_token" in fixtures:
        body = json.dumps(TRANSACTION)
        creator = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {fixtures['transactions_token']}")
        subscribed = Client(
            HTTP_HOST="127.0.0.1",
            HTTP_AUTHORIZATION=f"Bearer {fixtures['subscribed_token']}",
            HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID=SUBSCRIBED_ACCOUNT,
        )

        def create(client: Client) -> Send:
            return lambda: (
                client.post(
                    "/transactions", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=secrets.token_hex(8)
                ).status_code
            )

        reader = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {fixtures['transactions_read_token']}")

        def write_floor() -> int:
            request = factory.post(
                "/bare/transactions", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=secrets.token_hex(8)
            )
            return bare_transaction_create(request).status_code

        cases += [
            InProcessCase("create transaction", create(creator)),
            # The newest 20 of the account's transactions, as the SDK lists them: the creates of the pass just before.
            # The write floor's rows are the account's too and carry far less, so the page is read before they come.
            InProcessCase("transaction list", lambda: reader.get("/transactions", {"limit": 20}).status_code),
            InProcessCase("create, subscribed", create(subscribed)),
            InProcessCase("write floor", write_floor),
        ]
    return cases


def _warm(send: Send) -> None:
    for _ in range(20):  # code paths, caches, the connection
        status = send()
        if status >= 300:
            raise SystemExit(f"in-process request answered {status}")


def _cpu_ms(send: Send, requests: int) -> float:
    started = time.process_time()
    for _ in range(requests):
        send()
    return 1000 * (time.process_time() - started) / requests


def inprocess(fixtures: dict[str, str], requests: int, only: list[str] | None = None) -> list[str]:
    """The table of app CPU per request, in this process, for every case (or those named): the median of PASSES
    passes, the cases taking turns, so a burst of other work on a shared machine lands in one pass of one case
    instead of in a whole case's figure."""
    cases = [case for case in _cases(fixtures) if not only or case.name in only]
    for case in cases:
        _warm(case.send)
    passes: dict[str, list[float]] = {case.name: [] for case in cases}
    for _ in range(PASSES):
        for case in cases:
            passes[case.name].append(_cpu_ms(case.send, max(1, requests // PASSES)))
    figures = {name: statistics.median(values) for name, values in passes.items()}
    for name, values in passes.items():
        spread = f"passes {min(values):.3f} to {max(values):.3f}"
        print(f"  in process {name:<20} {figures[name]:6.3f} ms CPU/req ({spread})")
    lines = ["| case | app CPU ms/req, in process | x bare floor |", "|---|---:|---:|"]
    for name, cpu in figures.items():
        floor = figures.get(_FLOORS.get(name, "bare floor"))
        ratio = f"{cpu / floor:.2f}" if floor else "-"
        lines.append(f"| {name} | {cpu:.3f} | {ratio} |")
    if "create transaction" in figures:
        cpu = figures["create transaction"]
        verdict = "ok" if cpu <= CREATE_TARGET_MS else "MISSED"
        lines += [
            "",
            f"- create transaction, app CPU ms per request in process <= {CREATE_TARGET_MS}: {cpu:.2f} {verdict}",
        ]
    return lines


def profile(fixtures: dict[str, str], name: str, requests: int, top: int = 30) -> str:
    """cProfile of `requests` of one case: the functions with the most own time, then the most cumulative time."""
    case = next(case for case in _cases(fixtures) if case.name == name)
    _warm(case.send)
    profiler = cProfile.Profile(time.process_time)  # CPU, not the time spent waiting for the database
    profiler.enable()
    for _ in range(requests):
        case.send()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()
