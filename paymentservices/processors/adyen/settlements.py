"""Adyen's settlement details report: the CSV Adyen publishes for each settlement batch, read into ledger entries.

Columns as Adyen documents them (read by name, in any order; columns we do not use are ignored): `Psp Reference`,
`Merchant Reference`, `Creation Date`, `TimeZone`, `Type`, `Modification Reference`, `Gross Currency`,
`Gross Debit (GC)`, `Gross Credit (GC)`, `Exchange Rate`, `Net Currency`, `Net Debit (NC)`, `Net Credit (NC)`,
`Commission (NC)`, `Markup (NC)`, `Scheme Fees (NC)`, `Interchange (NC)`, `Batch Number`. Amounts are in major units
with the currency's decimals. `Settled` is a settlement, `Refunded` a refund settlement, `Chargeback` (and
`SecondChargeback`) a chargeback, `ChargebackReversed` its reversal, `MerchantPayout` the batch's payout; every other
type (`Fee`, `MiscCosts`, `DepositCorrection`, ...) is a fee line of the account.

A line that does not read refuses the file, naming the line and the column: a missing column, an amount that is not
a plain decimal of ASCII digits with the currency's decimals (no exponent, no other script's digits) or is beyond what
the ledger holds, a negative gross, a rate that is not a positive decimal below 10^10, a currency ISO 4217 does not
list, a date that is not one, a text cell longer than its bound or holding a control or format character.

How a report reaches us: Adyen's REPORT_AVAILABLE notification names the file and its download URL (the seam's
`AvailableReport`). A settlement details report's (`settlement_detail_report_batch_<n>.csv`) is taken (`takes`), its
URL only when it is on Adyen's report hosts (`report_allowed`), and downloaded with the service's report user key
(`report_api_key`); the settlements app keeps, retries and ingests it as it does every announced report.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.exceptions import ValidationError

from payments.money import currency_exponent
from payments.validators import validate_currency
from paymentservices.processors.adyen.reports import ReportUnread, report_download, report_url_allowed
from paymentservices.processors.seam import AvailableReport
from paymentservices.processors.settling import (
    MAX_LEDGER_AMOUNT,
    MAX_RATE,
    RATE_PLACES,
    LineKind,
    SettledLine,
    Settlements,
    SettlementUnread,
    SettlementUnreadable,
)

SETTLEMENT_REPORT_PREFIX = "settlement_detail_report_batch_"


class AdyenSettlements(Settlements):
    def read(self, content: bytes) -> list[SettledLine]:
        return read_settlement_details_report(content)

    def takes(self, report: AvailableReport) -> bool:
        return report.name.startswith(SETTLEMENT_REPORT_PREFIX)

    def report_allowed(self, url: str) -> bool:
        return report_url_allowed(url)

    def download(self, *, url: str, credentials: Mapping[str, str]) -> bytes:
        key = credentials.get("report_api_key")
        if not key:
            raise SettlementUnread(
                "The payment service has no report user API key (report_api_key): set it, and the next run fetches it."
            )
        try:
            return report_download(url=url, api_key=key)
        except ReportUnread as error:
            raise SettlementUnread(str(error)) from error


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
# The longest each text cell may be: what the ledger's columns hold, and the entry key (batch, type, PSP reference and
# modification reference together) within its 255 characters. Adyen's own references are 16 characters.
TEXT_LIMITS = {
    "Psp Reference": 64,
    "Merchant Reference": 255,
    "Modification Reference": 64,
    "Type": 64,
    "Batch Number": 32,
    "TimeZone": 64,
    "Creation Date": 19,
}
# An amount as Adyen writes it: ASCII digits, a point and the decimals; the sign only on the columns that may carry
# one (a gross is a magnitude, its side told by the column). The length bound keeps Decimal from being handed a
# number of a million digits.
_AMOUNT = re.compile(r"-?[0-9]{1,24}(?:\.[0-9]{1,8})?", flags=re.ASCII)
_RATE = re.compile(r"[0-9]{1,10}(?:\.[0-9]{1,30})?", flags=re.ASCII)
GROSS_COLUMNS = ("Gross Debit (GC)", "Gross Credit (GC)")
KINDS = {
    "Settled": LineKind.SETTLEMENT,
    "Refunded": LineKind.REFUND_SETTLEMENT,
    "Chargeback": LineKind.CHARGEBACK,
    "SecondChargeback": LineKind.CHARGEBACK,
    "ChargebackReversed": LineKind.CHARGEBACK_REVERSAL,
    "MerchantPayout": LineKind.PAYOUT,
}


def read_settlement_details_report(content: bytes) -> list[SettledLine]:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SettlementUnreadable("The Adyen report is not UTF-8 text.") from error
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as error:
        raise SettlementUnreadable(f"The Adyen report is not a readable CSV ({error}).") from error
    if not rows:
        raise SettlementUnreadable("The Adyen report has no lines.")
    missing = [name for name in REQUIRED_COLUMNS if name not in rows[0]]
    if missing:
        raise SettlementUnreadable(f"The Adyen report lacks the column(s) {', '.join(missing)}.")
    return [_entry(row, number) for number, row in enumerate(rows, start=2)]


def _entry(row: dict[str, str | None], line: int) -> SettledLine:
    if None in row or any(value is None for value in row.values()):
        raise SettlementUnreadable(
            f"Line {line} of the Adyen report has not as many fields as the header (truncated?)."
        )
    cells = {key: (value or "").strip() for key, value in row.items() if key is not None}
    for column, limit in TEXT_LIMITS.items():
        _text(cells, column, limit, line)
    gross_currency, net_currency = _currency(cells, "Gross Currency", line), _currency(cells, "Net Currency", line)
    gross_debit = _amount(cells, "Gross Debit (GC)", gross_currency, line)
    gross_credit = _amount(cells, "Gross Credit (GC)", gross_currency, line)
    net = _amount(cells, "Net Credit (NC)", net_currency, line) - _amount(cells, "Net Debit (NC)", net_currency, line)
    kind_name = cells["Type"]
    psp, modification = cells["Psp Reference"], cells.get("Modification Reference", "")
    return SettledLine(
        entry_key=f"{cells['Batch Number']}:{kind_name}:{psp}:{modification}",
        kind=KINDS.get(kind_name, LineKind.FEE),
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


def _refused(line: int, column: str, what: str) -> SettlementUnreadable:
    return SettlementUnreadable(f"Line {line} of the Adyen report: `{column}` {what}.")


def _text(cells: dict[str, str], column: str, limit: int, line: int) -> None:
    value = cells.get(column, "")
    if len(value) > limit:
        raise _refused(line, column, f"is longer than {limit} characters")
    if not value.isprintable():
        raise _refused(line, column, "holds a control or format character")


def _currency(cells: dict[str, str], column: str, line: int) -> str:
    value = cells[column]
    try:
        validate_currency(value)
    except ValidationError:
        raise _refused(line, column, "is not an ISO 4217 currency code") from None
    return value


def _amount(cells: dict[str, str], column: str, currency: str, line: int) -> int:
    """Minor units of a major-unit amount; an empty cell is zero (Adyen leaves the unused side of a line empty)."""
    value = cells.get(column, "")
    if not value:
        return 0
    if _AMOUNT.fullmatch(value) is None:
        raise _refused(line, column, f"is not an amount in {currency}")
    minor = Decimal(value).scaleb(currency_exponent(currency))
    if minor != minor.to_integral_value():
        raise _refused(line, column, f"is not an amount in {currency}")
    if abs(minor) > MAX_LEDGER_AMOUNT:
        raise _refused(line, column, "is beyond what the ledger holds")
    if minor < 0 and column in GROSS_COLUMNS:
        raise _refused(line, column, "is negative: a gross is a magnitude, its side is the column")
    return int(minor)


def _optional(cells: dict[str, str], column: str, currency: str, line: int) -> int | None:
    return _amount(cells, column, currency, line) if cells.get(column) else None


def _rate(cells: dict[str, str], line: int) -> Decimal | None:
    """A positive rate below 10^10, rounded to the ledger's ten decimals."""
    value = cells.get("Exchange Rate", "")
    if not value:
        return None
    if _RATE.fullmatch(value) is None:
        raise _refused(line, "Exchange Rate", "is not a rate")
    rate = Decimal(value).quantize(Decimal(1).scaleb(-RATE_PLACES), rounding=ROUND_HALF_EVEN)
    if not 0 < rate < MAX_RATE:
        raise _refused(line, "Exchange Rate", "is not a rate")
    return rate


def _posted_at(cells: dict[str, str], line: int) -> datetime:
    try:
        if not cells["Creation Date"].isascii():
            raise ValueError("not ASCII digits")
        naive = datetime.strptime(cells["Creation Date"], "%Y-%m-%d %H:%M:%S")
        return naive.replace(tzinfo=ZoneInfo(cells["TimeZone"] or "UTC"))
    except (ValueError, ZoneInfoNotFoundError) as error:
        raise SettlementUnreadable(
            f"Line {line} of the Adyen report: `Creation Date` / `TimeZone` is not a date and time."
        ) from error
