"""The sandbox's settlement report (the seam's `Settlements`): a JSON file of what it approved one day, read into
ledger lines with its fees worked out from its own fixed price list, so tests and the demo can check every figure:
2.9% + 30 minor units a payment, of which 1.5% is interchange, 0.2% the scheme fee and the rest its markup. Posted at
the start of the next day, paid out in the payout `sandbox-payout-<next day>`, available the day after. What it
approved is published from the server's own records (settlements.sources.sandbox).
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal

from payments.connectors.models import SandboxOperation
from paymentservices.processors.settling import LineKind, SettledLine, Settlements, SettlementUnreadable

PERCENT_FEE = Decimal("0.029")
FIXED_FEE = 30
INTERCHANGE = Decimal("0.015")
SCHEME_FEE = Decimal("0.002")
Op = SandboxOperation.Operation


class SandboxSettlements(Settlements):
    def read(self, content: bytes) -> list[SettledLine]:
        return read_sandbox_report(content)


def _share(amount: int, rate: Decimal) -> int:
    return int((amount * rate).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def read_sandbox_report(content: bytes) -> list[SettledLine]:
    """The sandbox's report read into ledger entries, its fees worked out from its price list."""
    try:
        report = json.loads(content)
        day = date.fromisoformat(report["day"])
        lines = report["lines"]
    except (ValueError, KeyError, TypeError) as error:
        raise SettlementUnreadable(f"The sandbox report is not readable ({type(error).__name__}).") from error
    posted_at = day_start(day + timedelta(days=1))
    payout = f"sandbox-payout-{(day + timedelta(days=1)).isoformat()}"
    return [_entry(line, posted_at, payout, number) for number, line in enumerate(lines, start=1)]


def _entry(line: dict[str, object], posted_at: datetime, payout: str, number: int) -> SettledLine:
    try:
        amount, currency = int(line["amount"]), str(line["currency"])  # type: ignore[call-overload]
        operation, reference = str(line["operation"]), str(line["reference"])
        processor_reference = str(line["processor_reference"])
        capture = str(line.get("capture", ""))
        if capture and not (capture.isascii() and capture.isdigit()):
            raise ValueError(capture)
    except (KeyError, TypeError, ValueError) as error:
        raise SettlementUnreadable(f"Line {number} of the sandbox report is not readable.") from error
    common = {
        "amount": amount,
        "currency": currency,
        "net_currency": currency,
        "posted_at": posted_at,
        "available_on": posted_at.date() + timedelta(days=1),
        "payout_reference": payout,
    }
    if operation == Op.REFUND:
        return SettledLine(
            entry_key=f"refund:{reference}",
            kind=LineKind.REFUND_SETTLEMENT,
            processor_type="refund",
            net_amount=-amount,
            modification_reference=processor_reference,
            merchant_reference=reference,
            **common,
        )
    commission = min(amount, _share(amount, PERCENT_FEE) + FIXED_FEE)
    interchange, scheme_fee = _share(amount, INTERCHANGE), _share(amount, SCHEME_FEE)
    return SettledLine(
        entry_key=f"capture:{reference}:{capture}" if capture else f"capture:{reference}",
        kind=LineKind.SETTLEMENT,
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
