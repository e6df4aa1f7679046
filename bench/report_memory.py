"""Benchmark: a transactions report's peak memory (RSS) and time, at two sizes, on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/payments_bench python bench/report_memory.py --rows 100000 1000000

Seeds the largest size once (copies of one captured card transaction, bulk inserted into a merchant account of
their own; reruns reuse them), then, for each size, runs one execution of a `transactions` report over that many
rows (every field, CSV) in a fresh child process and prints the child's peak RSS and wall time. Bounded memory means
the peak does not grow with the rows: docs/performance.md ("Reports") keeps the figures.
"""

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ACCOUNT = "bench-reports"
SEED_BATCH = 5000


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def seed(rows: int) -> None:
    """At least `rows` transactions in the bench account, each created a second apart."""
    from datetime import timedelta

    from django.core.management import call_command
    from django.utils import timezone

    call_command("migrate", verbosity=0)
    from payments.accounts.models import MerchantAccount
    from transactions.models import Transaction
    from transactions.tests.factories import TransactionFactory

    account, _ = MerchantAccount.objects.get_or_create(id=ACCOUNT, defaults={"display_name": "Reports bench"})
    have = Transaction.objects.filter(merchant_account=account).count()
    if have >= rows:
        return
    model = TransactionFactory(merchant_account=account, captured=True)
    values = {f.attname: getattr(model, f.attname) for f in Transaction._meta.concrete_fields if not f.primary_key}
    start = timezone.now()
    for offset in range(have, rows, SEED_BATCH):
        batch = [
            Transaction(**{**values, "created_at": start - timedelta(seconds=n)})
            for n in range(offset, min(rows, offset + SEED_BATCH))
        ]
        Transaction.objects.bulk_create(batch)
        print(f"  seeded {offset + len(batch)}", file=sys.stderr)


def run_one(rows: int) -> None:
    """In the child: one execution over the newest `rows` transactions of the bench account."""
    from django.utils import timezone

    from payments.accounts.models import MerchantAccount
    from reports.models import ReportExecution
    from reports.services.executions import report_execution_run
    from reports.tests.factories import ReportFactory
    from transactions.models import Transaction

    account = MerchantAccount.objects.get(id=ACCOUNT)
    oldest = Transaction.objects.filter(merchant_account=account).order_by("-created_at", "-id")[rows - 1].created_at
    report = ReportFactory(
        merchant_account=account, params={"fields": None, "filters": {"created_at": {"start": oldest.isoformat()}}}
    )
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=timezone.now(), reference_timezone="UTC"
    )
    report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    print(f"{execution.status} rows={execution.row_count} bytes={execution.file_size}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        sys.exit(__doc__)
    _django()
    if args.child:
        run_one(args.child)
        return
    seed(max(args.rows))
    print(f"{'rows':>10} {'peak RSS MiB':>13} {'seconds':>8}  outcome")
    for rows in args.rows:
        started = time.monotonic()
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(rows)], capture_output=True, text=True, check=True
        )
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        # ru_maxrss of children is the largest child so far: each size runs after the smaller ones.
        print(f"{rows:>10} {max(peak, before) / 1024:>13.0f} {time.monotonic() - started:>8.0f}  {done.stdout.strip()}")


if __name__ == "__main__":
    main()
