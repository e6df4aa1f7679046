"""App CPU per request without HTTP in the way: each case's request sent many times through Django's test client
in this process, its CPU time (`time.process_time()`) divided by the requests. Load from other work on the machine
hardly moves this figure, unlike throughput; the database's own work is not in it (it runs in PostgreSQL's
process), only what this process spends sending queries and reading rows.

The bare floors are called as plain view functions (no middleware, no DRF), as their own server calls them.
`--profile CASE` prints where that case's time goes (cProfile, by own time and by cumulative time).
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.fixtures import SUBSCRIBED_ACCOUNT, TRANSACTION

Send = Callable[[], int]
# Issue 48's target for `POST /transactions`, set on the machine it measured (docs/performance.md says how this
# machine compares).
CREATE_TARGET_MS = 5.0


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

        def write_floor() -> int:
            request = factory.post(
                "/bare/transactions", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=secrets.token_hex(8)
            )
            return bare_transaction_create(request).status_code

        cases += [
            InProcessCase("create transaction", create(creator)),
            InProcessCase("create, subscribed", create(subscribed)),
            InProcessCase("write floor", write_floor),
        ]
    return cases


def _cpu_ms(send: Send, requests: int) -> float:
    for _ in range(20):  # warm: code paths, caches, the connection
        status = send()
        if status >= 300:
            raise SystemExit(f"in-process request answered {status}")
    started = time.process_time()
    for _ in range(requests):
        send()
    return 1000 * (time.process_time() - started) / requests


def inprocess(fixtures: dict[str, str], requests: int, only: list[str] | None = None) -> list[str]:
    """The table of app CPU per request, in this process, for every case (or those named)."""
    lines = ["| case | app CPU ms/req, in process | x bare floor |", "|---|---:|---:|"]
    figures: dict[str, float] = {}
    for case in _cases(fixtures):
        if only and case.name not in only:
            continue
        figures[case.name] = _cpu_ms(case.send, requests)
        print(f"  in process {case.name:<20} {figures[case.name]:6.3f} ms CPU/req")
    for name, cpu in figures.items():
        floor = figures.get("write floor" if "create" in name or name == "write floor" else "bare floor")
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
    _cpu_ms(case.send, 10)
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
