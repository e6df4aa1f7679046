"""Benchmark: the API side by side with reference cases, in one run, on one machine (`make bench`).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/payments_bench REDIS_URL=redis://127.0.0.1:6379/7 make bench

Seeds 1,000,000 buyers for one merchant account (once; reruns reuse them), starts gunicorn with the
project's own config (`config/gunicorn.conf.py`, the same workers for every case), drives every case
with wrk in alternating rounds, and prints one table. See docs/performance.md for what each case is.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

# The package imports below need the repository root, which `python bench/run.py` does not put on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.cases import Result, buyer_cases, gift_card_cases, transaction_cases
from bench.fairness import app_servers
from bench.fixtures import ensure_database, prepare, server_environment
from bench.inprocess import inprocess, profile
from bench.load import drive, ensure_wrk, start_server, stop_server
from bench.processors import stripe_payments
from bench.report import report_targets, summarise, table
from bench.webhook_load import webhook_deliveries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument(
        "--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", 2 * (os.cpu_count() or 1) + 1))
    )
    parser.add_argument("--only", nargs="*", help="run only the cases with these names")
    parser.add_argument("--inprocess-requests", type=int, default=1000, help="requests per case of the CPU stage")
    parser.add_argument("--profile", metavar="CASE", help="print where one in-process case's time goes, and stop")
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
    if args.profile:
        print(profile(fixtures, args.profile, args.inprocess_requests))
        return
    run_servers = not args.only or "app servers" in args.only
    run_inprocess = not args.only or "in process" in args.only
    run_stripe = "transactions_token" in fixtures and (not args.only or "stripe payment" in args.only)
    run_webhooks = "subscribed_token" in fixtures and (not args.only or "webhook deliveries" in args.only)

    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    inprocess_lines = inprocess(fixtures, args.inprocess_requests) if run_inprocess else []
    server_lines = app_servers(wrk, env, fixtures, 3, args.seconds, workdir) if run_servers else []
    stripe_lines = stripe_payments(wrk, env, args.workers, 5 * args.seconds, workdir) if run_stripe else []
    webhook_lines = webhook_deliveries(env, fixtures, workdir) if run_webhooks else []
    # The limiter counts every embed request but, at this budget, never refuses one.
    servers = {}
    results: dict[str, list[Result]] = {case.name: [] for case in cases}
    try:
        # Started inside the try: a server that fails to start stops those started before it.
        if cases:
            servers["main"] = start_server(
                {**env, "RATELIMIT_EMBED": "1000000000/m"}, args.workers, workdir / "main.log"
            )
        if any(case.server == "bare" for case in cases):
            bare = {**env, "DJANGO_SETTINGS_MODULE": "bench.bare_settings"}
            servers["bare"] = start_server(
                bare, args.workers, workdir / "bare.log", ready_path="/bare/buyers?limit=1", app="bench.bare_wsgi"
            )
        if any(case.server == "limits-off" for case in cases):
            servers["limits-off"] = start_server(
                {**env, "RATELIMIT_ENABLE": "false"}, args.workers, workdir / "off.log"
            )
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
    for stage in (inprocess_lines, server_lines, stripe_lines, webhook_lines):
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
