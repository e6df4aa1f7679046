"""The sandbox processor settles its own payments the next day, so a server with no processor shows the whole picture.

Each day after it closes (UTC), the sandbox publishes one report per merchant account: a JSON file of what it
approved that day from its own record of decisions (`SandboxOperation`): captures (and authorizations of payments
made with `intent: capture`, which it captures at once) are paid out less its fee, refunds are taken back with no
fee. Its price list is its own and fixed, so tests and the demo can check every figure: 2.9% + 30 minor units a
payment, of which 1.5% is interchange, 0.2% the scheme fee and the rest its markup. Posted at the start of the next
day, paid out in the payout `sandbox-payout-<next day>`, available the day after.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.utils import timezone

from payments.accounts.models import MerchantAccount
from payments.choices import PaymentIntent
from payments.connectors.base import Outcome
from payments.connectors.models import SandboxOperation
from paymentservices.processors.sandbox import PROCESSOR as SANDBOX_PROCESSOR
from settlements.models import EntryKind, FileStatus, SettlementReportFile, Source
from settlements.services import FileUnreadable, IngestResult, ParsedEntry, SettlementFile, settlement_file_ingest
from transactions.models import Refund, Transaction

PERCENT_FEE = Decimal("0.029")
FIXED_FEE = 30
INTERCHANGE = Decimal("0.015")
SCHEME_FEE = Decimal("0.002")
Op = SandboxOperation.Operation
# The payment services whose settlements this source publishes (paymentservices.definitions).
DEFINITION_ID = SANDBOX_PROCESSOR.id


def _share(amount: int, rate: Decimal) -> int:
    return int((amount * rate).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


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
            report__source=Source.SANDBOX, report__name=day.isoformat(), status=FileStatus.INGESTED
        ).values_list("report__merchant_account_id", flat=True)
    )
    results = []
    for account_id, lines in _day_lines(day).items():
        if account_id in done:
            continue
        file = SettlementFile(
            source=Source.SANDBOX,
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
            decided_at__gte=_day_start(day),
            decided_at__lt=_day_start(day + timedelta(days=1)),
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


def read_sandbox_report(content: bytes) -> list[ParsedEntry]:
    """The sandbox's report read into ledger entries, its fees worked out from its price list."""
    try:
        report = json.loads(content)
        day = date.fromisoformat(report["day"])
        lines = report["lines"]
    except (ValueError, KeyError, TypeError) as error:
        raise FileUnreadable(f"The sandbox report is not readable ({type(error).__name__}).") from error
    posted_at = _day_start(day + timedelta(days=1))
    payout = f"sandbox-payout-{(day + timedelta(days=1)).isoformat()}"
    return [_entry(line, posted_at, payout, number) for number, line in enumerate(lines, start=1)]


def _entry(line: dict[str, object], posted_at: datetime, payout: str, number: int) -> ParsedEntry:
    try:
        amount, currency = int(line["amount"]), str(line["currency"])  # type: ignore[call-overload]
        operation, reference = str(line["operation"]), str(line["reference"])
        processor_reference = str(line["processor_reference"])
        capture = str(line.get("capture", ""))
        if capture and not (capture.isascii() and capture.isdigit()):
            raise ValueError(capture)
    except (KeyError, TypeError, ValueError) as error:
        raise FileUnreadable(f"Line {number} of the sandbox report is not readable.") from error
    common = {
        "amount": amount,
        "currency": currency,
        "net_currency": currency,
        "posted_at": posted_at,
        "available_on": posted_at.date() + timedelta(days=1),
        "payout_reference": payout,
    }
    if operation == Op.REFUND:
        return ParsedEntry(
            entry_key=f"refund:{reference}",
            kind=EntryKind.REFUND_SETTLEMENT,
            processor_type="refund",
            net_amount=-amount,
            modification_reference=processor_reference,
            merchant_reference=reference,
            **common,
        )
    commission = min(amount, _share(amount, PERCENT_FEE) + FIXED_FEE)
    interchange, scheme_fee = _share(amount, INTERCHANGE), _share(amount, SCHEME_FEE)
    return ParsedEntry(
        entry_key=f"capture:{reference}:{capture}" if capture else f"capture:{reference}",
        kind=EntryKind.SETTLEMENT,
        processor_type="capture",
        net_amount=amount - commission,
        commission=commission,
        interchange=interchange,
        scheme_fee=scheme_fee,
        markup=commission - interchange - scheme_fee,
        fee_details=[{"type": "processing", "amount": commission, "currency": currency}],
        merchant_reference=reference,
        **common,
    )
