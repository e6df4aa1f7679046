"""Benchmark: a transactions report's peak memory (RSS) and time, per size and file format, on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/payments_bench python bench/report_memory.py \
        --rows 10000 100000 1000000 --formats csv xlsx
    DATABASE_URL=... python bench/report_memory.py --rows 5000 --profile   # cProfile of one run, in process

Seeds the largest size once (copies of one captured card transaction, bulk inserted into a merchant account of
their own; reruns reuse them), then, for each format and size, runs one execution of a `transactions` report over
that many rows (every field) in a fresh child process and prints the child's own peak RSS, its CPU time (user and
system: on a shared machine, what the report itself cost) and wall time, and the CPU time per 100,000 rows.
Bounded memory means the peak does not grow with the rows: docs/performance.md ("Reports") keeps the figures.
"""

import argparse
import cProfile
import os
import pstats
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ACCOUNT = "bench-reports"
SEED_BATCH = 100_000


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def seed(rows: int) -> None:
    """At least `rows` transactions in the bench account, each created a second before the last: one made by the
    factory, copied by the database itself (a million rows in minutes, where building models took an hour)."""
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from payments.accounts.models import MerchantAccount
    from transactions.models import Transaction
    from transactions.tests.factories import TransactionFactory

    account, _ = MerchantAccount.objects.get_or_create(id=ACCOUNT, defaults={"display_name": "Reports bench"})
    have = Transaction.objects.filter(merchant_account=account).count()
    if have >= rows:
        return
    model = TransactionFactory.create(merchant_account=account, captured=True)
    columns = [f.column for f in Transaction._meta.concrete_fields if f.column and f.column not in ("id", "created_at")]
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    table = Transaction._meta.db_table
    copy = (
        f"INSERT INTO {table} (id, created_at, {names}) "  # noqa: S608 (names from the model, not input)
        f"SELECT gen_random_uuid(), model.created_at - make_interval(secs => n), {names} "
        f"FROM {table} AS model, generate_series(%s::bigint, %s::bigint) AS n WHERE model.id = %s"
    )
    with connection.cursor() as cursor:
        for offset in range(have + 1, rows, SEED_BATCH):
            cursor.execute(copy, [offset, min(rows, offset + SEED_BATCH) - 1, model.pk])
            print(f"  seeded {min(rows, offset + SEED_BATCH)}", file=sys.stderr)


def run_one(rows: int, file_format: str) -> None:
    """In the child: one execution over the newest `rows` transactions of the bench account; prints what it took."""
    from django.utils import timezone

    from payments.accounts.models import MerchantAccount
    from reports.models import ReportExecution
    from reports.services.executions import report_execution_run
    from reports.tests.factories import ReportFactory
    from transactions.models import Transaction

    account = MerchantAccount.objects.get(id=ACCOUNT)
    oldest = Transaction.objects.filter(merchant_account=account).order_by("-created_at", "-id")[rows - 1].created_at
    report = ReportFactory.create(
        merchant_account=account,
        file_format=file_format,
        params={"fields": None, "filters": {"created_at": {"start": oldest.isoformat()}}},
    )
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=timezone.now(), reference_timezone="UTC", file_format=file_format
    )
    before, started = _cpu(), time.monotonic()
    report_execution_run(execution_id=str(execution.pk))
    cpu, wall = _cpu() - before, time.monotonic() - started
    execution.refresh_from_db()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{peak:.0f} {cpu:.1f} {wall:.1f} {execution.status} {execution.row_count} {execution.file_size}")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def profile(rows: int, file_format: str) -> None:
    """One run in this process under cProfile: where a row's time goes."""
    profiler = cProfile.Profile()
    profiler.runcall(run_one, rows, file_format)
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(30)
    stats.sort_stats("tottime").print_stats(20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--formats", nargs="+", choices=["csv", "xlsx"], default=["csv", "xlsx"])
    parser.add_argument("--profile", action="store_true", help="profile one run of the first size and format")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        sys.exit(__doc__)
    _django()
    if args.child:
        run_one(args.child, args.formats[0])
        return
    seed(max(args.rows))
    if args.profile:
        profile(args.rows[0], args.formats[0])
        return
    print(f"{'format':>6} {'rows':>10} {'peak RSS MiB':>13} {'CPU s':>8} {'wall s':>8} {'CPU s/100k':>11}  outcome")
    for file_format in args.formats:
        for rows in args.rows:
            command = [sys.executable, __file__, "--child", str(rows), "--formats", file_format]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            peak, cpu, wall, *outcome = done.stdout.split()[-6:]
            per_100k = float(cpu) / rows * 100_000
            print(
                f"{file_format:>6} {rows:>10} {peak:>13} {cpu:>8} {wall:>8} {per_100k:>11.1f}  {' '.join(outcome)}",
                flush=True,
            )


if __name__ == "__main__":
    main()
