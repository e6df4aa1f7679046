"""Adyen's settlement details report: the CSV Adyen publishes for each settlement batch, read into ledger entries.

Columns as Adyen documents them (read by name, in any order; columns we do not use are ignored): `Psp Reference`,
`Merchant Reference`, `Creation Date`, `TimeZone`, `Type`, `Modification Reference`, `Gross Currency`,
`Gross Debit (GC)`, `Gross Credit (GC)`, `Exchange Rate`, `Net Currency`, `Net Debit (NC)`, `Net Credit (NC)`,
`Commission (NC)`, `Markup (NC)`, `Scheme Fees (NC)`, `Interchange (NC)`, `Batch Number`. Amounts are in major units
with the currency's decimals. `Settled` is a settlement, `Refunded` a refund settlement, `Chargeback` (and
`SecondChargeback`) a chargeback, `ChargebackReversed` its reversal, `MerchantPayout` the batch's payout; every other
type (`Fee`, `MiscCosts`, `DepositCorrection`, ...) is a fee line of the account.

A line that does not read (a missing column, an amount that is not one, a date that is not one) refuses the file.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from decimal import Decimal, InvalidOperation
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from payments.accounts.models import MerchantAccount
from payments.money import currency_exponent
from paymentservices.models import PaymentService
from settlements.models import EntryKind, Source
from settlements.services import FileUnreadable, IngestResult, ParsedEntry, SettlementFile, settlement_file_ingest

REQUIRED_COLUMNS = (
    "Psp Reference",
    "Merchant Reference",
    "Creation Date",
    "TimeZone",
    "Type",
    "Gross Currency",
    "Gross Debit (GC)",
    "Gross Credit (GC)",
    "Net Currency",
    "Net Debit (NC)",
    "Net Credit (NC)",
    "Batch Number",
)
KINDS = {
    "Settled": EntryKind.SETTLEMENT,
    "Refunded": EntryKind.REFUND_SETTLEMENT,
    "Chargeback": EntryKind.CHARGEBACK,
    "SecondChargeback": EntryKind.CHARGEBACK,
    "ChargebackReversed": EntryKind.CHARGEBACK_REVERSAL,
    "MerchantPayout": EntryKind.PAYOUT,
}


def settlements_adyen_report_ingest(
    *, merchant_account: MerchantAccount, payment_service: PaymentService | None, file_name: str, content: bytes
) -> IngestResult:
    """Ingest one settlement details report as Adyen published it (`file_name` is the name its REPORT_AVAILABLE
    notification gives, e.g. `settlement_detail_report_batch_123.csv`)."""
    file = SettlementFile(
        source=Source.ADYEN,
        report_name=file_name,
        name=file_name,
        content=content,
        read=read_settlement_details_report,
    )
    return settlement_file_ingest(merchant_account=merchant_account, payment_service=payment_service, file=file)


def read_settlement_details_report(content: bytes) -> list[ParsedEntry]:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FileUnreadable("The Adyen report is not UTF-8 text.") from error
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as error:
        raise FileUnreadable(f"The Adyen report is not a readable CSV ({error}).") from error
    if not rows:
        raise FileUnreadable("The Adyen report has no lines.")
    missing = [name for name in REQUIRED_COLUMNS if name not in rows[0]]
    if missing:
        raise FileUnreadable(f"The Adyen report lacks the column(s) {', '.join(missing)}.")
    return [_entry(row, number) for number, row in enumerate(rows, start=2)]


def _entry(row: dict[str, str | None], line: int) -> ParsedEntry:
    if None in row or any(value is None for value in row.values()):
        raise FileUnreadable(f"Line {line} of the Adyen report has not as many fields as the header (truncated?).")
    cells = {key: (value or "").strip() for key, value in row.items() if key is not None}
    gross_currency, net_currency = _currency(cells, "Gross Currency", line), _currency(cells, "Net Currency", line)
    gross_debit = _amount(cells, "Gross Debit (GC)", gross_currency, line)
    gross_credit = _amount(cells, "Gross Credit (GC)", gross_currency, line)
    net = _amount(cells, "Net Credit (NC)", net_currency, line) - _amount(cells, "Net Debit (NC)", net_currency, line)
    kind_name = cells["Type"]
    psp, modification = cells["Psp Reference"], cells.get("Modification Reference", "")
    return ParsedEntry(
        entry_key=f"{cells['Batch Number']}:{kind_name}:{psp}:{modification}",
        kind=KINDS.get(kind_name, EntryKind.FEE),
        processor_type=kind_name,
        amount=gross_credit or gross_debit,
        currency=gross_currency,
        net_amount=net,
        net_currency=net_currency,
        posted_at=_posted_at(cells, line),
        commission=_amount(cells, "Commission (NC)", net_currency, line),
        interchange=_optional(cells, "Interchange (NC)", net_currency, line),
        markup=_optional(cells, "Markup (NC)", net_currency, line),
        scheme_fee=_optional(cells, "Scheme Fees (NC)", net_currency, line),
        exchange_rate=_rate(cells, line),
        processor_reference=psp,
        modification_reference=modification,
        merchant_reference=cells["Merchant Reference"],
        payout_reference=cells["Batch Number"],
    )


def _currency(cells: dict[str, str], column: str, line: int) -> str:
    value = cells[column]
    if len(value) != 3 or not value.isalpha() or not value.isupper():
        raise FileUnreadable(f"Line {line} of the Adyen report: `{column}` is not a currency code.")
    return value


def _amount(cells: dict[str, str], column: str, currency: str, line: int) -> int:
    """Minor units of a major-unit amount; an empty cell is zero (Adyen leaves the unused side of a line empty)."""
    value = cells.get(column, "")
    if not value:
        return 0
    try:
        minor = Decimal(value).scaleb(currency_exponent(currency))
    except InvalidOperation:
        minor = Decimal("NaN")
    if not minor.is_finite() or minor != minor.to_integral_value():
        raise FileUnreadable(f"Line {line} of the Adyen report: `{column}` is not an amount in {currency}.")
    return int(minor)


def _optional(cells: dict[str, str], column: str, currency: str, line: int) -> int | None:
    return _amount(cells, column, currency, line) if cells.get(column) else None


def _rate(cells: dict[str, str], line: int) -> Decimal | None:
    value = cells.get("Exchange Rate", "")
    if not value:
        return None
    try:
        rate = Decimal(value)
    except InvalidOperation:
        rate = Decimal("NaN")
    if not rate.is_finite() or rate <= 0:
        raise FileUnreadable(f"Line {line} of the Adyen report: `Exchange Rate` is not a rate.")
    return rate


def _posted_at(cells: dict[str, str], line: int) -> datetime:
    try:
        naive = datetime.strptime(cells["Creation Date"], "%Y-%m-%d %H:%M:%S")
        return naive.replace(tzinfo=ZoneInfo(cells["TimeZone"] or "UTC"))
    except (ValueError, ZoneInfoNotFoundError) as error:
        raise FileUnreadable(
            f"Line {line} of the Adyen report: `Creation Date` / `TimeZone` is not a date and time."
        ) from error
