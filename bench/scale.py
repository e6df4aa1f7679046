"""The scale stage (`make bench STAGE=scale`): what the API's lists and the desk's pages cost as the data grows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/payments_scale REDIS_URL=redis://127.0.0.1:6379/7 \\
        make bench STAGE=scale

For each size (`--sizes`, 10,000, 100,000 and 1,000,000 by default) the merchant account is brought up to that many
demo buyers and transactions by the project's own `seed_demo` (resumable: the next size adds to the last), then each
request below is sent `WARM_RUNS` times to warm, then `--runs` times through Django's test client in this process
(the middleware, DRF and the admin as a server runs them; no HTTP) and its p50 printed, with the plan of its slowest
SQL statement at the largest size (`EXPLAIN ANALYZE`). The target: every p50 under 100 ms at
1,000,000 rows, within 2x of 10,000.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fixtures import MERCHANT_ACCOUNT, ensure_database, sandbox_service, server_environment

TARGET_MS = 100.0
# Runs before the measured ones: the caches filled, and each statement run often enough to be prepared and for
# PostgreSQL to have chosen between its own plan for the values and a generic one (after five runs of the prepared
# statement), so the figures are those of a server that has served the request many times.
WARM_RUNS = 12


@dataclass
class Probe:
    name: str
    path: str
    params: dict[str, str]
    desk: bool = False  # the admin, signed in as staff; else the API with a token


def probes() -> list[Probe]:
    """The requests the issue lists, with values taken from the seeded data (a rare value, a deep page)."""
    from django.utils import timezone

    from transactions.demo import demo_transactions
    from transactions.models import Transaction

    account = MERCHANT_ACCOUNT
    newest = demo_transactions_first(demo_transactions, account)
    deep = Transaction.objects.filter(merchant_account_id=account).order_by("-created_at", "-id").values("id")[500:501]
    deep_id = str(deep[0]["id"]) if deep else str(newest.id)
    day = timezone.now() - timedelta(days=85)
    window = {"updated_at_gte": day.isoformat(), "updated_at_lte": (day + timedelta(days=1)).isoformat()}
    email = (newest.buyer_email_address or "buyer1@example.com").split("@")[0][:6]
    return [
        Probe("search: no match", "/transactions", {"search": "no-such-thing"}),
        Probe("search: transaction id", "/transactions", {"search": str(newest.id)}),
        Probe("search: a name", "/transactions", {"search": "Buyer 4242"}),
        Probe("status", "/transactions", {"status": "authorization_declined"}),
        Probe("created window", "/transactions", {"created_at_gte": day.isoformat()}),
        Probe("updated window, 85 days back", "/transactions", window),
        Probe("buyer", "/transactions", {"buyer_external_identifier": newest.buyer_external_identifier or "none"}),
        Probe("amount range", "/transactions", {"amount_gte": "34000", "amount_lte": "35000"}),
        Probe("payment service", "/transactions", {"payment_service_id": str(newest.payment_service_id)}),
        Probe("metadata (rare)", "/transactions", {"metadata": '{"order": "none"}'}),
        Probe("payment_method_scheme (rare)", "/transactions", {"payment_method_scheme": "discover"}),
        Probe("country (rare)", "/transactions", {"country": "GB"}),
        Probe("buyers search", "/buyers", {"search": "Buyer 4242"}),
        Probe("desk: search partial email", "/admin/transactions/transaction/", {"q": email + "@"}, desk=True),
        Probe("desk: search last 4", "/admin/transactions/transaction/", {"q": "0002"}, desk=True),
        Probe("desk: search transaction id", "/admin/transactions/transaction/", {"q": str(newest.id)}, desk=True),
        Probe(
            "desk: search external id",
            "/admin/transactions/transaction/",
            {"q": newest.external_identifier or "none"},
            desk=True,
        ),
        Probe("desk: transactions list", "/admin/transactions/transaction/", {}, desk=True),
        Probe("desk: transactions ?p=100", "/admin/transactions/transaction/", {"p": "100"}, desk=True),
        Probe("desk: transaction page", f"/admin/transactions/transaction/{deep_id}/change/", {}, desk=True),
        Probe("desk: buyer profile", f"/admin/buyers/buyer/{newest.buyer_id}/profile/", {}, desk=True),
        Probe("desk: audit log list", "/admin/payments/auditlogentry/", {}, desk=True),
        Probe("desk: audit log ?p=90", "/admin/payments/auditlogentry/", {"p": "90"}, desk=True),
        Probe("desk: audit log search", "/admin/payments/auditlogentry/", {"q": str(newest.id)}, desk=True),
        Probe("desk: ledger list", "/admin/settlements/ledgerentry/", {}, desk=True),
        Probe("desk: ledger ?p=90", "/admin/settlements/ledgerentry/", {"p": "90"}, desk=True),
        Probe("desk: ledger search payout", "/admin/settlements/ledgerentry/", {"q": "po_bench_5"}, desk=True),
        Probe("desk: ledger search reference", "/admin/settlements/ledgerentry/", {"q": "ch_bench_4242"}, desk=True),
    ]


def demo_transactions_first(demo_transactions: Callable, account: str):
    from payments.accounts.models import MerchantAccount

    return demo_transactions(MerchantAccount.objects.get(id=account)).order_by("-created_at").first()


def seed(total: int) -> None:
    from django.core.management import call_command

    started = time.monotonic()
    call_command("seed_demo", merchant_account=MERCHANT_ACCOUNT, buyers=total, transactions=total)
    print(f"  seeded up to {total:,} buyers and transactions in {time.monotonic() - started:.0f}s")


def seed_entries(total: int) -> None:
    """The audit log and the settlement ledger brought up to `total` entries each, one every 7 seconds back from
    now, in one INSERT ... SELECT each (PostgreSQL's `generate_series`): the services that write them one by one
    would take hours, and the desk reads them as rows, whoever wrote them."""
    from django.db import connection

    from payments.accounts.models import MerchantAccount
    from settlements.models import FileStatus, SettlementReport, SettlementReportFile

    account = MerchantAccount.objects.get(id=MERCHANT_ACCOUNT)
    report, _ = SettlementReport.objects.get_or_create(merchant_account=account, source="bench", name="bench")
    file, _ = SettlementReportFile.objects.get_or_create(
        report=report, name="bench.csv", defaults={"digest": "0" * 64, "status": FileStatus.INGESTED}
    )
    started = time.monotonic()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM payments_auditlogentry WHERE user_name LIKE %s", ["bench-%"])
        cursor.execute(AUDIT_ROWS, {"account": account.id, "first": cursor.fetchone()[0] + 1, "last": total})
        cursor.execute("SELECT count(*) FROM settlements_ledgerentry WHERE report_id = %s", [report.pk])
        first = cursor.fetchone()[0] + 1
        cursor.execute(
            LEDGER_ROWS, {"account": account.id, "report": report.pk, "file": file.pk, "first": first, "last": total}
        )
    print(f"  audit log and ledger up to {total:,} entries each in {time.monotonic() - started:.0f}s")


AUDIT_ROWS = """
INSERT INTO payments_auditlogentry (created_at, updated_at, id, action, resource_type, resource_id, resource_name,
    user_id, user_name, user_email, user_is_staff, merchant_account_id)
SELECT at, at, gen_random_uuid(), 'updated', 'transaction', gen_random_uuid()::text, 'transaction',
    NULL, 'bench-' || (n %% 50), NULL, false, %(account)s
FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS n,
    LATERAL (SELECT now() - n * interval '7 seconds' AS at) AS t
"""

LEDGER_ROWS = """
INSERT INTO settlements_ledgerentry (created_at, updated_at, id, source, entry_key, kind, processor_type,
    processor_reference, modification_reference, merchant_reference, amount, currency, commission, fee_details,
    net_amount, net_currency, posted_at, payout_reference, merchant_account_id, report_id, file_id, mismatch)
SELECT at, at, gen_random_uuid(), 'bench', 'bench-' || n, 'settlement', 'charge', 'ch_bench_' || n, '', '',
    1000 + n %% 5000, 'USD', 30, '[]', 970 + n %% 5000, 'USD', at, 'po_bench_' || (n / 1000), %(account)s,
    %(report)s, %(file)s, ''
FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS n,
    LATERAL (SELECT now() - n * interval '7 seconds' AS at) AS t
"""


def measure(probe: Probe, runs: int, api, desk) -> tuple[float, int, str]:
    """p50 in ms, the status, and the slowest statement's SQL of one run."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = desk if probe.desk else api
    timings, status, slowest = [], 0, ""
    for _ in range(runs):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            status = client.get(probe.path, probe.params).status_code
            timings.append((time.perf_counter() - started) * 1000)
        slowest = max(queries.captured_queries, key=lambda q: float(q["time"]), default={"sql": ""})["sql"]
    return statistics.median(timings), status, slowest


def explain(sql: str) -> str:
    from django.db import connection

    if not sql.lstrip().upper().startswith("SELECT"):
        return ""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) " + sql)
        return "\n".join(row[0] for row in cursor.fetchall())


def clients(env: dict[str, str]):
    from django.contrib.auth import get_user_model
    from django.test import Client

    from payments.accounts.keys import load_private_pem, mint_token, public_pem
    from payments.accounts.models import MerchantAccount
    from payments.accounts.services import api_key_register

    account = MerchantAccount.objects.get(id=MERCHANT_ACCOUNT)
    private_pem = env["BENCH_PRIVATE_KEY_PEM"]
    api_key_register(public_key_pem=public_pem(load_private_pem(private_pem)), merchant_account=account)
    token = mint_token(private_pem, scopes=["*.read"], expires_in=3600)
    api = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {token}")
    staff, _ = get_user_model().objects.get_or_create(
        username="bench-scale", defaults={"is_staff": True, "is_superuser": True}
    )
    desk = Client(HTTP_HOST="127.0.0.1")
    desk.force_login(staff)
    return api, desk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", nargs="*", help="run only the probes with these names")
    args = parser.parse_args()
    database_url, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not database_url.startswith(("postgres://", "postgresql://")) or not redis_url:
        sys.exit(__doc__)
    env = server_environment(database_url, redis_url)
    ensure_database(database_url)
    os.environ.update({**env, "LOG_LEVEL": "WARNING", "DJANGO_SETTINGS_MODULE": "config.settings"})
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from payments.accounts.models import MerchantAccount

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # the desk's pages name their static files
    account, _ = MerchantAccount.objects.get_or_create(id=MERCHANT_ACCOUNT, defaults={"display_name": "Bench"})
    sandbox_service(account)
    api, desk = clients(env)
    figures: dict[str, list[str]] = {}
    plans: dict[str, str] = {}
    for size in sorted(args.sizes):
        print(f"size {size:,}")
        seed(size)
        seed_entries(size)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")  # autocommit: the planner's statistics for the new rows
        for probe in probes():
            if args.only and probe.name not in args.only:
                continue
            for _ in range(WARM_RUNS):
                client_get(api, desk, probe)
            p50, status, sql = measure(probe, args.runs, api, desk)
            figures.setdefault(probe.name, []).append(f"{p50:,.0f}")
            print(f"  {probe.name:<34} {p50:8.1f} ms  ({status})")
            if size == max(args.sizes):
                plans[probe.name] = explain(sql)
    print("\n| request | " + " | ".join(f"{size:,}" for size in sorted(args.sizes)) + " |")
    print("|---|" + "---:|" * len(args.sizes))
    for name, row in figures.items():
        print(f"| {name} | " + " | ".join(row) + " |")
    for name, plan in plans.items():
        print(f"\n{name}:\n{plan}")


def client_get(api, desk, probe: Probe) -> None:
    (desk if probe.desk else api).get(probe.path, probe.params)


if __name__ == "__main__":
    main()
