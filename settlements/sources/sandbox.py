"""The sandbox processor settles its own payments the next day, so a server with no processor shows the whole picture.

Each day after it closes (UTC), the sandbox publishes one report per merchant account: a JSON file of what it
approved that day from its own record of decisions (`SandboxOperation`): captures (and authorizations of payments
made with `intent: capture`, which it captures at once) are paid out less its fee, refunds are taken back with no
fee (its price list and how its report reads: paymentservices/processors/sandbox/settlements.py). Its records sit
beside our transactions, which a processor's folder cannot read: so the sandbox's publishing is here.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import date, timedelta

from django.conf import settings
from django.utils import timezone

from payments.accounts.models import MerchantAccount
from payments.choices import PaymentIntent
from payments.connectors.base import Outcome
from payments.connectors.models import SandboxOperation
from paymentservices.processors.sandbox import PROCESSOR as SANDBOX_PROCESSOR
from paymentservices.processors.sandbox import day_start, read_sandbox_report
from settlements.models import FileStatus, SettlementReportFile
from settlements.services import IngestResult, SettlementFile, settlement_file_ingest
from transactions.models import Refund, Transaction

Op = SandboxOperation.Operation
# The payment services whose settlements this source publishes: the sandbox processor's.
DEFINITION_ID = SANDBOX_PROCESSOR.id


def settlements_sandbox_ingest(*, today: date | None = None) -> list[IngestResult]:
    """Publish and ingest the sandbox's report of every closed day in the look-back window that has none yet."""
    today = today or timezone.now().date()
    results = []
    for days_ago in range(settings.SANDBOX_SETTLEMENT_LOOKBACK_DAYS, 0, -1):
        results += _settle_day(today - timedelta(days=days_ago))
    return results


def _settle_day(day: date) -> list[IngestResult]:
    done = set(
        SettlementReportFile.objects.filter(
            report__source=SANDBOX_PROCESSOR.id, report__name=day.isoformat(), status=FileStatus.INGESTED
        ).values_list("report__merchant_account_id", flat=True)
    )
    results = []
    for account_id, lines in _day_lines(day).items():
        if account_id in done:
            continue
        file = SettlementFile(
            source=SANDBOX_PROCESSOR.id,
            report_name=day.isoformat(),
            name=f"settlement-{day.isoformat()}.json",
            content=json.dumps({"day": day.isoformat(), "lines": lines}, sort_keys=True).encode(),
            read=read_sandbox_report,
        )
        account = MerchantAccount.objects.get(pk=account_id)
        results.append(settlement_file_ingest(merchant_account=account, payment_service=None, file=file))
    return results


def _day_lines(day: date) -> dict[str, list[dict[str, object]]]:
    """What the sandbox approved on `day`, by merchant account: each payment it captured and each refund."""
    operations = list(
        SandboxOperation.objects.filter(
            decided_at__gte=day_start(day),
            decided_at__lt=day_start(day + timedelta(days=1)),
            outcome=Outcome.APPROVED,
            operation__in=[Op.AUTHORIZATION, Op.CAPTURE, Op.REFUND],
            amount__isnull=False,
        ).order_by("reference")
    )
    payment_ids = {op.reference.split(":")[0] for op in operations if op.operation != Op.REFUND}
    payments = {
        str(pk): (account, intent)
        for pk, account, intent in Transaction.objects.filter(pk__in=payment_ids).values_list(
            "pk", "merchant_account_id", "intent"
        )
    }
    refunds = {
        str(pk): account
        for pk, account in Refund.objects.filter(
            pk__in=[op.reference for op in operations if op.operation == Op.REFUND]
        ).values_list("pk", "merchant_account_id")
    }
    lines: dict[str, list[dict[str, object]]] = defaultdict(list)
    for op in operations:
        ours = op.reference.split(":")[0]
        if op.operation == Op.REFUND and ours in refunds:
            lines[refunds[ours]].append(_line(op, ours))
        elif ours in payments:
            account, intent = payments[ours]
            if op.operation == Op.CAPTURE or intent == PaymentIntent.CAPTURE:
                lines[account].append(_line(op, ours))
    return lines


def _line(op: SandboxOperation, ours: str) -> dict[str, object]:
    line: dict[str, object] = {
        "operation": op.operation,
        "reference": ours,
        "processor_reference": op.processor_reference,
        "amount": op.amount,
        "currency": op.currency,
    }
    # A payment captured in parts: each later capture's reference carries its sequence (`<id>:capture:2`), and each
    # capture is a line of its own (the first keeps the key a payment's one capture always had).
    later = f"{ours}:capture:"
    if op.operation == Op.CAPTURE and op.reference.startswith(later):
        line["capture"] = op.reference.removeprefix(later)
    return line
