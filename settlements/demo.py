"""Demo settlements for `seed_demo --settlements N`: the sandbox's settlement of the account's demo captures, as its
daily report would have recorded them, so the desk, the transaction answers and the detailed settlement report show
the ledger on seeded data too.

Each demo transaction that the sandbox captured before today (UTC) is settled, oldest first, up to N: a `settlement`
ledger entry priced by the sandbox's own reader (`read_sandbox_report`: its fee list, posting and payout), in a report
`demo <day>` of its capture day (never the name of a real sandbox report, so the sandbox's own ingestion of that day
is not taken for done), and the transaction's `settled_*` fields and `settled` event as the ingestion leaves them (no
webhook: demo data notifies no one). Batches go in whole; a rerun carries on after the last settled transaction.
Ledger rows go in through COPY on PostgreSQL, with every column of the model (so they stay in step with it).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import defaultdict
from datetime import UTC, date, datetime, time

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from payments.accounts.models import MerchantAccount
from payments.ops.demo import DemoResult, DemoRun, copy_lines, copy_text, seeding_lock
from paymentservices.processors.sandbox import PROCESSOR as SANDBOX_PROCESSOR
from paymentservices.processors.sandbox import read_sandbox_report
from settlements.models import FileStatus, LedgerEntry, SettlementReport, SettlementReportFile
from transactions.demo import demo_transactions
from transactions.models import Transaction, TransactionEvent, TransactionStatus

REPORT_PREFIX = "demo "


def demo_ledger_entries(merchant_account: MerchantAccount) -> QuerySet[LedgerEntry]:
    return LedgerEntry.objects.filter(merchant_account=merchant_account, report__name__startswith=REPORT_PREFIX)


def seed_demo_settlements(run: DemoRun) -> DemoResult:
    """Settle the account's demo captures until `run.total` of them are settled (or none is left to settle)."""
    account = run.merchant_account
    with seeding_lock("settlements", account):
        before = demo_ledger_entries(account).count()
        today = datetime.combine(timezone.now().date(), time.min, tzinfo=UTC)
        waiting = demo_transactions(account).filter(
            status=TransactionStatus.CAPTURE_SUCCEEDED, settled_at__isnull=True, captured_at__lt=today
        )
        rows = list(
            waiting.order_by("captured_at", "id").values_list("pk", "amount", "currency", "captured_at")[
                : max(run.total - before, 0)
            ]
        )
        for start in range(0, len(rows), run.batch_size):
            _settle(account, rows[start : start + run.batch_size])
            if run.on_progress is not None:
                run.on_progress(before + min(start + run.batch_size, len(rows)), run.total)
    after = demo_ledger_entries(account).count()
    note = "" if after >= run.total else "(every demo capture of a closed day is settled)"
    return DemoResult(before=before, after=after, note=note)


Row = tuple[uuid.UUID, int, str, datetime | None]


def _settle(account: MerchantAccount, rows: list[Row]) -> None:
    """One batch: a file per capture day, its entries, and what they tell the transactions, in one transaction."""
    by_day: dict[date, list[Row]] = defaultdict(list)
    for row in rows:
        by_day[(row[3] or timezone.now()).astimezone(UTC).date()].append(row)
    now = timezone.now()
    entries: list[LedgerEntry] = []
    with transaction.atomic():
        for day, day_rows in sorted(by_day.items()):
            entries += _day_entries(account, day, day_rows, now)
        _write(entries)
        _tell_transactions(entries, now)


def _day_entries(account: MerchantAccount, day: date, rows: list[Row], now: datetime) -> list[LedgerEntry]:
    lines = [
        {
            "operation": "capture",
            "reference": str(pk),
            "processor_reference": f"sandbox-capture-{pk}",
            "amount": amount,
            "currency": currency,
        }
        for pk, amount, currency, _ in rows
    ]
    content = json.dumps({"day": day.isoformat(), "lines": lines}, sort_keys=True).encode()
    report, _ = SettlementReport.objects.get_or_create(
        merchant_account=account, source=SANDBOX_PROCESSOR.id, name=f"{REPORT_PREFIX}{day.isoformat()}"
    )
    file = SettlementReportFile.objects.create(
        report=report,
        name=f"demo-settlement-{day.isoformat()}-{rows[0][0]}.json",
        digest=hashlib.sha256(content).hexdigest(),
        status=FileStatus.INGESTED,
        entry_count=len(rows),
    )
    return [
        LedgerEntry(
            merchant_account=account,
            report=report,
            file=file,
            source=SANDBOX_PROCESSOR.id,
            transaction_id=row[0],
            created_at=now,
            updated_at=now,
            **parsed.__dict__,
        )
        for row, parsed in zip(rows, read_sandbox_report(content), strict=True)
    ]


def _write(entries: list[LedgerEntry]) -> None:
    if connection.vendor != "postgresql":
        LedgerEntry.objects.bulk_create(entries)
        return
    fields = LedgerEntry._meta.concrete_fields
    lines = ("\t".join(_copy_value(field.value_from_object(entry)) for field in fields) + "\n" for entry in entries)
    copy_lines(LedgerEntry._meta.db_table, [str(field.column) for field in fields], lines)


def _copy_value(value: object) -> str:
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, dict | list):  # a JSON field
        return copy_text(json.dumps(value))
    return copy_text(value)


def _tell_transactions(entries: list[LedgerEntry], now: datetime) -> None:
    """Each settled transaction's net, as the ingestion records it, with its `settled` event."""
    settled = {entry.transaction_id: entry for entry in entries}
    transactions = list(Transaction.objects.filter(pk__in=list(settled)))
    for txn in transactions:
        entry = settled[txn.pk]
        txn.settled_at, txn.settled_amount, txn.settled_currency = entry.posted_at, entry.net_amount, entry.net_currency
        txn.updated_at = now
    Transaction.objects.bulk_update(transactions, ["settled_at", "settled_amount", "settled_currency", "updated_at"])
    TransactionEvent.objects.bulk_create(
        [
            TransactionEvent(
                transaction=txn,
                name="settled",
                actor_type=TransactionEvent.ActorType.SYSTEM,
                actor="",
                from_status=txn.status,
                to_status=txn.status,
                amount=settled[txn.pk].net_amount,
                details={"currency": settled[txn.pk].net_currency},
            )
            for txn in transactions
        ]
    )
