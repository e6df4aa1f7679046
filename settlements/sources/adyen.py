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

How a report reaches us: Adyen's REPORT_AVAILABLE notification names the file and its download URL. A settlement
details report's (`settlement_detail_report_batch_<n>.csv`) is kept as a `ReportFetch` inside the notification's own
transaction, its URL only when it is on Adyen's report hosts (else the fetch is `refused`, shown to the operator), and
a job downloads it with the service's report user key (`report_api_key`) and ingests it. A download that fails stays
`pending` with the reason (on the desk), is tried again after `RETRY_SECONDS`, then by every `ingest-settlements` run
until it succeeds: an announced report is never lost.
"""

from __future__ import annotations

import csv
import io
import logging
import re
import uuid
from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from payments.accounts.models import MerchantAccount
from payments.money import currency_exponent
from payments.validators import validate_currency
from paymentservices.models import PaymentService
from paymentservices.notifications import ProcessorEvent
from paymentservices.processors import adyen
from paymentservices.services import CredentialsUnusable, payment_service_connector_credentials
from settlements.models import EntryKind, FetchStatus, ReportFetch, Source
from settlements.services import (
    MAX_LEDGER_AMOUNT,
    MAX_RATE,
    RATE_PLACES,
    FileUnreadable,
    IngestResult,
    Outcome,
    ParsedEntry,
    SettlementFile,
    settlement_file_ingest,
)

logger = logging.getLogger(__name__)

# The payment services whose settlement reports this source fetches (paymentservices.definitions).
DEFINITION_ID = adyen.PROCESSOR.id

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


SETTLEMENT_REPORT_PREFIX = "settlement_detail_report_batch_"
# How long after a failed download the job tries again; after the last, each `ingest-settlements` run tries.
RETRY_SECONDS = (60, 300, 1800)


def settlements_adyen_report_announced(event: ProcessorEvent) -> None:
    """A notification handler (registered by the app): keep a settlement details report Adyen announced and queue
    its download once the notification commits. Other reports and events are not ours."""
    report = event.report
    service = event.payment_service
    if report is None or service.definition_id != DEFINITION_ID:
        return
    if not report.name.startswith(SETTLEMENT_REPORT_PREFIX):
        return
    allowed = adyen.report_url_allowed(report.url)
    fetch, created = ReportFetch.objects.get_or_create(
        payment_service=service,
        name=report.name,
        defaults={
            "merchant_account_id": service.merchant_account_id,
            "source": Source.ADYEN,
            "url": report.url if allowed else "",
            "status": FetchStatus.PENDING if allowed else FetchStatus.REFUSED,
            "message": ""
            if allowed
            else "The report's URL is not on Adyen's report hosts: it was not kept nor fetched.",
        },
    )
    if not allowed:
        logger.warning("Adyen report %s of payment service %s refused: its URL is not Adyen's", report.name, service.pk)
    elif created:
        transaction.on_commit(lambda: fetch_adyen_report.enqueue(str(fetch.pk)))


@task()
def fetch_adyen_report(fetch_id: str) -> None:
    """Download and ingest one announced report (queued by the notification, and again after a failure)."""
    settlements_adyen_report_fetch(fetch_id=uuid.UUID(fetch_id))


def settlements_adyen_fetch_pending() -> list[IngestResult]:
    """Every announced report not fetched yet, oldest first: the `ingest-settlements` job's part for Adyen."""
    pending = ReportFetch.objects.filter(source=Source.ADYEN, status=FetchStatus.PENDING).order_by("created_at")
    results = [settlements_adyen_report_fetch(fetch_id=pk) for pk in pending.values_list("pk", flat=True)]
    return [result for result in results if result is not None]


def settlements_adyen_report_fetch(*, fetch_id: uuid.UUID) -> IngestResult | None:
    """Download the report (its URL checked again before use) with the service's report user key and ingest it; a
    failed download stays pending with the reason and is queued again. None when there was nothing to do (fetched
    already, refused, or another worker holds it) or the download failed. A report that breaks what reads it stays
    pending with why, as a failed download does, and is answered as failed: it never stops the reports after it."""
    try:
        return _fetch(fetch_id)
    except Exception as error:
        logger.exception("Adyen report fetch %s broke; it stays pending", fetch_id)
        return _broke(fetch_id, error)


def _broke(fetch_id: uuid.UUID, error: Exception) -> IngestResult | None:
    with transaction.atomic():
        fetch = ReportFetch.objects.select_for_update().filter(pk=fetch_id, status=FetchStatus.PENDING).first()
        if fetch is None:
            return None
        fetch.attempts += 1
        _failed(fetch, f"The report could not be ingested ({type(error).__name__}); it is tried again.")
    return IngestResult(Outcome.FAILED, None, message=f"{fetch.name}: {fetch.message}")


def _fetch(fetch_id: uuid.UUID) -> IngestResult | None:
    with transaction.atomic():
        fetch = (
            ReportFetch.objects.select_for_update(skip_locked=True)
            .select_related("payment_service", "merchant_account")
            .filter(pk=fetch_id, status=FetchStatus.PENDING)
            .first()
        )
        if fetch is None:
            return None
        fetch.attempts += 1
        try:
            content = adyen.report_download(url=fetch.url, api_key=_report_key(fetch.payment_service))
        except (adyen.ReportUnread, CredentialsUnusable) as error:
            _failed(fetch, str(error))
            return None
        result = settlements_adyen_report_ingest(
            merchant_account=fetch.merchant_account,
            payment_service=fetch.payment_service,
            file_name=fetch.name,
            content=content,
        )
        fetch.status = FetchStatus.FETCHED
        fetch.message = result.message if result.outcome == Outcome.REFUSED else ""
        fetch.save(update_fields=["status", "attempts", "message", "updated_at"])
    return result


def _report_key(service: PaymentService) -> str:
    key = payment_service_connector_credentials(service=service).get("report_api_key")
    if not key:
        raise adyen.ReportUnread(
            "The payment service has no report user API key (report_api_key): set it, and the next run fetches it."
        )
    return key


def _failed(fetch: ReportFetch, message: str) -> None:
    fetch.message = message
    fetch.save(update_fields=["attempts", "message", "updated_at"])
    logger.warning("Adyen report %s not fetched (attempt %d): %s", fetch.name, fetch.attempts, message)
    if fetch.attempts <= len(RETRY_SECONDS):
        retry_at = timezone.now() + timedelta(seconds=RETRY_SECONDS[fetch.attempts - 1])
        fetch_id = str(fetch.pk)
        transaction.on_commit(lambda: fetch_adyen_report.using(run_after=retry_at).enqueue(fetch_id))


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
    for column, limit in TEXT_LIMITS.items():
        _text(cells, column, limit, line)
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


def _refused(line: int, column: str, what: str) -> FileUnreadable:
    return FileUnreadable(f"Line {line} of the Adyen report: `{column}` {what}.")


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
        raise FileUnreadable(
            f"Line {line} of the Adyen report: `Creation Date` / `TimeZone` is not a date and time."
        ) from error
