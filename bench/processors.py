"""Paying through a real processor's library: `POST /transactions` routed to a `stripe-card` payment service whose
Stripe is localstripe (a fake of Stripe's API, started as the test suite starts it). What matters is the time this
server adds on top of the processor's own answers: each worker writes, per request, the time the application took
and the time spent inside Stripe's library waiting for HTTP answers (bench/counted.py); the difference is ours. Both
are also taken as the worker thread's CPU time: by the clock, what is added includes the waits on the database and
on the two cores the machine's other processes share (localstripe, PostgreSQL, the other connection's payment); by
CPU, only this server's own work.

localstripe is one Python process on the same two cores, far slower than Stripe. The payments are sent one at a
time first: localstripe then works only while this server waits for its answer, which is subtracted, as Stripe's
own machines never take this server's cores. Then two at once, as a busier server sees them: localstripe answering
one payment takes a core while this server works on the other, so that figure by the clock also holds the waits
for a core that a co-located fake causes.
"""

import json
import statistics
from pathlib import Path
from typing import Any, cast

from bench.cases import Case, Result
from bench.fixtures import TRANSACTION
from bench.load import drive, start_server, stop_server

STRIPE_ACCOUNT = "bench-stripe"
STRIPE_SECRET = "sk_test_bench_0123456789"  # noqa: S105 - localstripe takes any test key
# One payment at a time, then two at once (the module's docstring says why both).
CONNECTIONS = (1, 2)


def stripe_account() -> str:
    """A merchant account whose one payment service is `stripe-card`; a token that may pay for it."""
    from payments.accounts.keys import generate_private_key, mint_token, public_pem
    from payments.accounts.models import MerchantAccount
    from payments.accounts.services import api_key_register
    from paymentservices.models import PaymentService
    from paymentservices.services import payment_service_create, payment_service_update

    account, _ = MerchantAccount.objects.get_or_create(id=STRIPE_ACCOUNT, defaults={"display_name": "Stripe"})
    # A service of an earlier run is sealed with that run's throwaway card keys (bench/fixtures.py): retire it.
    for earlier in PaymentService.objects.filter(merchant_account=account, definition_id="stripe-card", active=True):
        payment_service_update(service=earlier, active=False)
    payment_service_create(
        merchant_account=account,
        definition_id="stripe-card",
        display_name="Stripe",
        fields=[{"key": "secret_key", "value": STRIPE_SECRET}],
        accepted_currencies=["USD"],
        accepted_countries=["US"],
        position=1,  # before the sandbox service every new account starts with
    )
    private_key, private_pem = generate_private_key()
    api_key_register(public_key_pem=public_pem(private_key), merchant_account=account)
    return mint_token(private_pem, scopes=["transactions.write"], expires_in=3600)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _collected(timings: Path) -> list[list[float]]:
    """The workers' timings written so far, in ms (application, Stripe's library, the same two by CPU); cleared."""
    rows = []
    for path in timings.iterdir():
        rows += [[1000 * float(value) for value in line.split()] for line in path.read_text().splitlines()]
        path.unlink()
    return rows


def stripe_payments(wrk: str, env: dict[str, str], workers: int, seconds: float, workdir: Path) -> list[str]:
    """Drive Stripe payments for `seconds` at each of CONNECTIONS; the tables of what the processor took and what this
    server added."""
    from paymentservices.processors.stripe.tests.mock import localstripe

    token = stripe_account()
    card = cast(dict[str, Any], TRANSACTION["payment_method"])
    body = json.dumps({**TRANSACTION, "payment_method": {**card, "number": "4242424242424242"}})
    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "x-gr4vy-merchant-account-id": STRIPE_ACCOUNT,
    }
    case = Case("stripe payment", "/transactions", headers, "POST", body, unique_header="Idempotency-Key")
    timings = workdir / "processor-times"
    timings.mkdir()
    lines: list[str] = []
    with localstripe() as fake:
        timed = {**env, "STRIPE_API_BASE": fake.url, "BENCH_PROCESSOR_TIMES": str(timings)}
        server = start_server(timed, workers, workdir / "stripe.log")
        try:
            drive(wrk, server, case, 2, max(CONNECTIONS), workdir)  # warm: code, caches, connections
            _collected(timings)
            for connections in CONNECTIONS:
                result = drive(wrk, server, case, seconds, connections, workdir)
                lines += _payments_table(result, connections, _collected(timings), workdir)
        finally:
            stop_server(server[0])
    return lines


def _payments_table(result: Result, connections: int, timed_requests: list[list[float]], workdir: Path) -> list[str]:
    at_once = "one at a time" if connections == 1 else f"{connections} at once"
    if not timed_requests or result.bad:
        return [f"stripe payment, {at_once}: {len(timed_requests)} timed requests, {result.bad} errors; see {workdir}"]
    took, processor, took_cpu, processor_cpu = (list(column) for column in zip(*timed_requests, strict=True))
    added = [t - p for t, p in zip(took, processor, strict=True)]
    added_cpu = [t - p for t, p in zip(took_cpu, processor_cpu, strict=True)]
    rows = [
        ("in the application", took),
        ("in Stripe's library (the processor's answers)", processor),
        ("added by this server", added),
        ("the application's CPU", took_cpu),
        ("of it in Stripe's library", processor_cpu),
        ("added by this server, CPU", added_cpu),
    ]
    lines = [
        f"Stripe payments through localstripe, {at_once}: {len(timed_requests):,} requests, {result.rps:,.0f} req/s; "
        f"at the client p50 {result.p50_ms:.2f} ms, p99 {result.p99_ms:.2f} ms",
        "",
        "| per request | p50 ms | p99 ms | mean ms |",
        "|---|---:|---:|---:|",
    ]
    for label, values in rows:
        lines.append(
            f"| {label} | {_percentile(values, 0.5):.2f} | {_percentile(values, 0.99):.2f} "
            f"| {statistics.mean(values):.2f} |"
        )
    lines.append("")
    for label, values in (("added by this server", added), ("the same by CPU", added_cpu)):
        verdict = "ok" if _percentile(values, 0.5) < 10 else "MISSED"
        lines.append(f"- {label}, {at_once}, p50 under 10 ms: {_percentile(values, 0.5):.2f} ms {verdict}")
    lines.append("")
    return lines
