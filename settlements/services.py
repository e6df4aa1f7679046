"""Ingesting a processor's settlement file: the one place the ledger is written.

A source (`settlements.sources`) fetches a file and its processor reads it (`Settlements.read`, the seam's);
`settlement_file_ingest` does the rest the same way for every processor:

- all or nothing: the file is read whole before anything is written, and its entries, its file row and what they
  change on our transactions commit in one database transaction. A file that cannot be read (truncated, garbled, a
  line that does not add up) is refused: a `refused` file row says why, for the operator, and nothing else is kept.
- idempotent: a file is ingested once (a unique key on its name within the report), and an entry once (a unique key
  on the processor's key for the line), so the same file or page twice, or two ingestions of it at once, add nothing.
- resumable: each file commits on its own; a run that stops leaves the files before it ingested, and the next run
  (scheduled or asked for) ingests what is left.
- nothing dropped: an entry for a payment that matches none of ours is kept, unmatched, and listed for the operator.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import cast

from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Count, Max, Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from payments.accounts.models import MerchantAccount
from payments.money import currency_exponent, format_money
from payments.validators import validate_currency
from paymentservices.models import PaymentService
from paymentservices.processors.settling import (
    MAX_LEDGER_AMOUNT,
    MAX_RATE,
    RATE_PLACES,
    SettledLine,
    SettlementUnreadable,
)
from payouts.models import Payout, PayoutStatus
from settlements.models import (
    PAYMENT_KINDS,
    EntryKind,
    FileStatus,
    LedgerEntry,
    ProcessorPayout,
    SettlementReport,
    SettlementReportFile,
)
from transactions.models import Refund, Transaction
from transactions.services.settlement import SettledTotal, refund_settlement_record, transaction_settlement_record

logger = logging.getLogger(__name__)


# A line and a file that does not read are the processor seam's words (paymentservices.processors.settling): each
# processor reads its own files into them.
ParsedEntry = SettledLine
FileUnreadable = SettlementUnreadable


@dataclass(frozen=True)
class SettlementFile:
    """A file as a source fetched it: which report it belongs to, its name there, its bytes, how to read them."""

    source: str
    report_name: str
    name: str
    content: bytes
    read: Callable[[bytes], Sequence[ParsedEntry]]


class Outcome:
    INGESTED = "ingested"
    ALREADY_INGESTED = "already_ingested"
    REFUSED = "refused"
    # Not ingested, and not for what the file says: what reads it broke, or the source did not answer. Nothing was
    # written; the next run tries again.
    FAILED = "failed"


@dataclass(frozen=True)
class IngestResult:
    outcome: str
    file: SettlementReportFile | None
    entries: int = 0
    unmatched: int = 0
    message: str = ""


def _digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def settlement_file_ingest(
    *, merchant_account: MerchantAccount, payment_service: PaymentService | None, file: SettlementFile
) -> IngestResult:
    """Ingest one file whole, or refuse it whole (see the module's docstring)."""
    digest = _digest(file.content)
    try:
        parsed = list(file.read(file.content))
        _check_entries(parsed)
    except FileUnreadable as error:
        return _refuse(merchant_account, payment_service, file, digest, f"{error} Nothing from the file was recorded.")
    try:
        with transaction.atomic():
            report = _report(merchant_account, payment_service, file)
            row = SettlementReportFile.objects.create(
                report=report, name=file.name, digest=digest, status=FileStatus.INGESTED, entry_count=0
            )
            entries = _record_entries(merchant_account, report, row, file.source, parsed)
            row.entry_count = len(entries)
            row.save(update_fields=["entry_count", "updated_at"])
            _tell_transactions(entries)
    except IntegrityError:
        return _already_ingested(merchant_account, payment_service, file, digest)
    except (DatabaseError, OverflowError, ValueError) as error:
        # The last resort: a value no check foresaw that the database (or its driver) refused. The file is kept as
        # refused, for the operator, rather than lost in a crash that would also stop the files after it.
        logger.exception(
            "Settlement file %s of %s %s: the database refused it", file.name, file.source, file.report_name
        )
        message = f"The database refused the file ({type(error).__name__}). Nothing from the file was recorded."
        return _refuse(merchant_account, payment_service, file, digest, message)
    unmatched = sum(1 for entry in entries if entry.kind in PAYMENT_KINDS and entry.transaction_id is None)
    logger.info(
        "Settlement file %s of %s %s ingested: %d entries, %d unmatched",
        file.name,
        file.source,
        file.report_name,
        len(entries),
        unmatched,
    )
    return IngestResult(Outcome.INGESTED, row, entries=len(entries), unmatched=unmatched)


_AMOUNT_FIELDS = ("amount", "net_amount", "commission", "interchange", "markup", "scheme_fee")
_TEXT_FIELDS = (
    "entry_key",
    "processor_type",
    "processor_reference",
    "modification_reference",
    "merchant_reference",
    "payout_reference",
)


def _check_entries(parsed: Sequence[ParsedEntry]) -> None:
    """What every file must hold before anything is written, whichever source read it: each line once (two lines
    under one key would be read as one line already in the ledger, and one of them dropped), and every value within
    what the ledger holds. The sources name the line and column of what they read; this names the entry and field
    of what slipped past them, so nothing a database would refuse half-way is ever written."""
    seen: dict[str, int] = {}
    for number, line in enumerate(parsed, start=1):
        problem = _entry_problem(line)
        if problem:
            raise FileUnreadable(f"Entry {number} of the file (in the file's order): {problem}.")
        first = seen.setdefault(line.entry_key, number)
        if first != number:
            raise FileUnreadable(
                f"The file's entries {first} and {number} (in the file's order) have one key ({line.entry_key})."
            )


def _entry_problem(line: ParsedEntry) -> str:
    """What is wrong with one parsed line, or nothing."""
    for name in _AMOUNT_FIELDS:
        value = getattr(line, name)
        if value is not None and (type(value) is not int or abs(value) > MAX_LEDGER_AMOUNT):
            return f"`{name}` is not an amount the ledger holds"
    if line.amount < 0:
        return "`amount` is negative: the gross of a line is a magnitude"
    for name in ("currency", "net_currency"):
        try:
            validate_currency(getattr(line, name))
        except ValidationError:
            return f"`{name}` is not an ISO 4217 currency code"
    for name in _TEXT_FIELDS:
        limit = getattr(LedgerEntry._meta.get_field(name), "max_length", 0)
        value = getattr(line, name)
        if len(value) > limit or not value.isprintable():
            return f"`{name}` is longer than {limit} characters or holds a control or format character"
    if line.exchange_rate is not None and not _rate_kept(line.exchange_rate):
        return "`exchange_rate` is not a positive rate below 10^10 with at most ten decimals"
    if "\\u0000" in json.dumps(line.fee_details):  # PostgreSQL's JSON refuses NUL
        return "`fee_details` holds a NUL character"
    return ""


def _rate_kept(rate: Decimal) -> bool:
    return rate.is_finite() and 0 < rate < MAX_RATE and rate == rate.quantize(Decimal(1).scaleb(-RATE_PLACES))


def _report(
    merchant_account: MerchantAccount, payment_service: PaymentService | None, file: SettlementFile
) -> SettlementReport:
    report, _ = SettlementReport.objects.get_or_create(
        merchant_account=merchant_account,
        source=file.source,
        name=file.report_name,
        defaults={"payment_service": payment_service},
    )
    return report


def _already_ingested(
    merchant_account: MerchantAccount, payment_service: PaymentService | None, file: SettlementFile, digest: str
) -> IngestResult:
    """The file's name is ingested already (or one of its lines, from another file): the same bytes add nothing;
    different bytes under an ingested name are refused, since the ledger keeps what was first published."""
    existing = SettlementReportFile.objects.filter(
        report__merchant_account=merchant_account,
        report__source=file.source,
        report__name=file.report_name,
        name=file.name,
        status=FileStatus.INGESTED,
    ).first()
    if existing is None:
        # Another file ingested at the same moment holds one of these lines: this one is read again next run.
        return IngestResult(Outcome.REFUSED, None, message="A line of the file was being ingested from another file.")
    if existing.digest == digest:
        return IngestResult(Outcome.ALREADY_INGESTED, existing, entries=0)
    message = (
        f"The {file.source} file {file.name} of report {file.report_name} was ingested before with other content; "
        "the ledger keeps the first. Nothing from this copy was recorded: ask the processor which is right."
    )
    return _refuse(merchant_account, payment_service, file, digest, message)


def _refuse(
    merchant_account: MerchantAccount,
    payment_service: PaymentService | None,
    file: SettlementFile,
    digest: str,
    message: str,
) -> IngestResult:
    """Keep the refusal (the file's name, digest and why) for the operator, and nothing from the file."""
    with transaction.atomic():
        report = _report(merchant_account, payment_service, file)
        row = SettlementReportFile.objects.create(
            report=report, name=file.name, digest=digest, status=FileStatus.REFUSED, message=message
        )
    logger.warning("Settlement file %s of %s %s refused: %s", file.name, file.source, file.report_name, message)
    return IngestResult(Outcome.REFUSED, row, message=message)


def _record_entries(
    merchant_account: MerchantAccount,
    report: SettlementReport,
    row: SettlementReportFile,
    source: str,
    parsed: Sequence[ParsedEntry],
) -> list[LedgerEntry]:
    """The file's lines not in the ledger yet, matched to our payments and written."""
    known = set(
        LedgerEntry.objects.filter(
            merchant_account=merchant_account, source=source, entry_key__in=[line.entry_key for line in parsed]
        ).values_list("entry_key", flat=True)
    )
    fresh = [line for line in parsed if line.entry_key not in known]
    _name_payouts(merchant_account, source, [line for line in parsed if line.entry_key in known])
    matches = _Matcher(merchant_account, fresh)
    entries = [
        LedgerEntry(
            merchant_account=merchant_account,
            report=report,
            file=row,
            source=source,
            transaction_id=matches.transaction_id(line),
            refund_id=matches.refund_id(line),
            payout_id=matches.payout_id(line),
            **line.__dict__,
        )
        for line in fresh
    ]
    _flag_mismatches(entries)
    LedgerEntry.objects.bulk_create(entries)
    _sum_payouts(merchant_account, source, {line.payout_reference for line in parsed} - {""})
    return entries


def _flag_mismatches(entries: Sequence[LedgerEntry]) -> None:
    """A settlement line that takes its transaction's settled gross (its settlement lines so far, in the
    transaction's currency) past what we captured is kept as the processor wrote it, and says so for the operator:
    a partial capture settled at the authorized amount, a payment settled twice."""
    settling = [entry for entry in entries if entry.kind == EntryKind.SETTLEMENT and entry.transaction_id]
    captured: dict[uuid.UUID, tuple[int, str]] = {
        pk: (amount, currency)
        for pk, amount, currency in Transaction.objects.filter(
            pk__in=[entry.transaction_id for entry in settling]
        ).values_list("pk", "captured_amount", "currency")
    }
    if not captured:
        return
    earlier = LedgerEntry.objects.filter(transaction_id__in=list(captured), kind=EntryKind.SETTLEMENT).only(
        "transaction_id", "amount", "currency", "exchange_rate"
    )
    # Per transaction: the gross so far, and what the processor's rounding of converted lines may add to it.
    totals: dict[uuid.UUID, tuple[Decimal, Decimal]] = {}
    for entry, fresh in [*((entry, False) for entry in earlier), *((entry, True) for entry in settling)]:
        txn_id = cast(uuid.UUID, entry.transaction_id)  # every line here names one of `captured`
        amount, currency = captured[txn_id]
        converted = _gross_in(entry, currency)
        if converted is None:
            if not fresh:
                continue
            entry.mismatch = (
                f"Settled in {entry.currency} with no exchange rate to the payment's {currency}: compare it with the "
                f"{format_money(amount, currency)} captured."
            )
            continue
        total, slack = totals.get(txn_id, (Decimal(0), Decimal(0)))
        total, slack = total + converted[0], slack + converted[1]
        totals[txn_id] = (total, slack)
        if fresh and total - slack > amount:
            entry.mismatch = _mismatch(entry, total, amount, currency)


def _gross_in(entry: LedgerEntry, currency: str) -> tuple[Decimal, Decimal] | None:
    """The line's gross in the transaction's currency (minor units), and how much the processor's rounding may have
    added to it; None when it is in another currency with no rate. A rate says how much of the line's currency one
    unit of the payment's bought (Stripe's `exchange_rate`)."""
    if entry.currency == currency:
        return Decimal(entry.amount), Decimal(0)
    if not entry.exchange_rate:
        return None
    scale = Decimal(1).scaleb(currency_exponent(currency) - currency_exponent(entry.currency)) / entry.exchange_rate
    return entry.amount * scale, scale / 2


def _mismatch(entry: LedgerEntry, total: Decimal, captured: int, currency: str) -> str:
    gross = format_money(int(total.to_integral_value(rounding=ROUND_HALF_EVEN)), currency)
    if entry.currency != currency:
        rate = entry.exchange_rate.normalize() if entry.exchange_rate else ""
        gross += f" (this line: {format_money(entry.amount, entry.currency)} at {rate})"
    return f"Settled gross {gross} is more than the {format_money(captured, currency)} captured."


def _name_payouts(merchant_account: MerchantAccount, source: str, known: Sequence[ParsedEntry]) -> None:
    """A line already in the ledger that a later file says a payout paid (Stripe lists what a payout paid after the
    lines themselves) takes the payout's name; nothing else of an entry ever changes."""
    by_payout: dict[str, list[str]] = {}
    for line in known:
        if line.payout_reference:
            by_payout.setdefault(line.payout_reference, []).append(line.entry_key)
    for payout, keys in by_payout.items():
        LedgerEntry.objects.filter(
            merchant_account=merchant_account, source=source, entry_key__in=keys, payout_reference=""
        ).update(payout_reference=payout)


def _sum_payouts(merchant_account: MerchantAccount, source: str, references: set[str]) -> None:
    """Each payout the file's lines name, summed again from all its lines in the ledger. Its rows are locked first (in
    one order, made if new): a file ingested at the same moment waits, then sums with this one's lines committed."""
    if not references:
        return
    lines = LedgerEntry.objects.filter(
        merchant_account=merchant_account, source=source, payout_reference__in=references
    )
    currencies = set(lines.values_list("payout_reference", "net_currency").distinct())
    ProcessorPayout.objects.bulk_create(
        [
            ProcessorPayout(merchant_account=merchant_account, source=source, reference=ref, currency=currency)
            for ref, currency in sorted(currencies)
        ],
        ignore_conflicts=True,
    )
    payouts = list(
        ProcessorPayout.objects.select_for_update()
        .filter(merchant_account=merchant_account, source=source, reference__in=references)
        .order_by("reference", "currency")
    )
    not_payout = ~Q(kind=EntryKind.PAYOUT)
    totals = {
        (row["payout_reference"], row["net_currency"]): row
        for row in lines.values("payout_reference", "net_currency").annotate(
            line_count=Count("id"),
            posted_at=Max("posted_at"),
            net=Coalesce(Sum("net_amount", filter=not_payout), 0),
            commissions=Coalesce(Sum("commission", filter=not_payout & ~Q(kind=EntryKind.FEE)), 0),
            fee_lines=Coalesce(Sum("net_amount", filter=Q(kind=EntryKind.FEE)), 0),
            paid_out=-Sum("net_amount", filter=Q(kind=EntryKind.PAYOUT)),
        )
    }
    for payout in payouts:  # a file names a few payouts: one for a sandbox day or a Stripe payout
        row = totals[(payout.reference, payout.currency)]
        payout.fees = row["commissions"] - row["fee_lines"]  # a fee line's net is the fee, as a debit
        payout.net, payout.gross = row["net"], row["net"] + payout.fees
        payout.paid_out, payout.line_count, payout.posted_at = row["paid_out"], row["line_count"], row["posted_at"]
        payout.save(update_fields=["gross", "fees", "net", "paid_out", "line_count", "posted_at", "updated_at"])


class _Matcher:
    """Which of our transactions, refunds and payouts the lines name: by the processor's id for it (what its answer
    gave us), else by our own reference (the transaction's, refund's or payout's id, which every connector sends as
    the merchant reference). A query each for the whole file."""

    def __init__(self, merchant_account: MerchantAccount, lines: Iterable[ParsedEntry]) -> None:
        lines = list(lines)
        self._payouts = _payouts_named(merchant_account, lines)
        lines = [line for line in lines if line.kind in PAYMENT_KINDS]
        processor_ids = {
            ref for line in lines for ref in (line.processor_reference, line.modification_reference) if ref
        }
        ours = {_uuid(line.merchant_reference) for line in lines} - {None}
        transactions = Transaction.objects.filter(merchant_account=merchant_account).filter(
            Q(payment_service_transaction_id__in=processor_ids) | Q(pk__in=ours)
        )
        refunds = Refund.objects.filter(merchant_account=merchant_account).filter(
            Q(payment_service_refund_id__in=processor_ids) | Q(pk__in=ours)
        )
        self._transactions: dict[str, uuid.UUID] = {}
        for txn_id, processor_id in transactions.values_list("pk", "payment_service_transaction_id"):
            self._transactions[str(txn_id)] = txn_id
            if processor_id:
                self._transactions[processor_id] = txn_id
        self._refunds: dict[str, tuple[uuid.UUID, uuid.UUID]] = {}
        for refund_id, txn_id, processor_id in refunds.values_list("pk", "transaction_id", "payment_service_refund_id"):
            self._refunds[str(refund_id)] = (refund_id, txn_id)
            if processor_id:
                self._refunds[processor_id] = (refund_id, txn_id)

    def _refund(self, line: ParsedEntry) -> tuple[uuid.UUID, uuid.UUID] | None:
        if line.kind != EntryKind.REFUND_SETTLEMENT:
            return None
        for key in (line.modification_reference, line.merchant_reference, line.processor_reference):
            if key and key in self._refunds:
                return self._refunds[key]
        return None

    def payout_id(self, line: ParsedEntry) -> uuid.UUID | None:
        if line.kind != EntryKind.CARD_PAYOUT:
            return None
        return self._payouts.get(line.merchant_reference) or self._payouts.get(line.processor_reference)

    def refund_id(self, line: ParsedEntry) -> uuid.UUID | None:
        refund = self._refund(line)
        return refund[0] if refund else None

    def transaction_id(self, line: ParsedEntry) -> uuid.UUID | None:
        if line.kind not in PAYMENT_KINDS:
            return None
        refund = self._refund(line)
        if refund:
            return refund[1]
        for key in (line.processor_reference, line.merchant_reference):
            if key and key in self._transactions:
                return self._transactions[key]
        return None


def _payouts_named(merchant_account: MerchantAccount, lines: Iterable[ParsedEntry]) -> dict[str, uuid.UUID]:
    """The payouts the file's card-payout lines name, by our reference and by the processor's."""
    lines = [line for line in lines if line.kind == EntryKind.CARD_PAYOUT]
    if not lines:
        return {}
    ours = {_uuid(line.merchant_reference) for line in lines} - {None}
    theirs = {line.processor_reference for line in lines if line.processor_reference}
    named: dict[str, uuid.UUID] = {}
    payouts = Payout.objects.filter(merchant_account=merchant_account).filter(
        Q(pk__in=ours) | Q(payment_service_payout_id__in=theirs)
    )
    for payout_id, processor_id in payouts.values_list("pk", "payment_service_payout_id"):
        named[str(payout_id)] = payout_id
        if processor_id:
            named[processor_id] = payout_id
    return named


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _tell_transactions(entries: Sequence[LedgerEntry]) -> None:
    """Each transaction and refund the file touched gets its settled net from all its entries so far."""
    transaction_ids = sorted({entry.transaction_id for entry in entries if entry.transaction_id}, key=str)
    for txn_id in transaction_ids:
        total = _settled_total(LedgerEntry.objects.filter(transaction_id=txn_id, kind__in=PAYMENT_KINDS))
        if total is not None:
            transaction_settlement_record(txn_id=txn_id, total=total)
    refund_ids = sorted({entry.refund_id for entry in entries if entry.refund_id}, key=str)
    for refund_id in refund_ids:
        total = _settled_total(LedgerEntry.objects.filter(refund_id=refund_id), kind=EntryKind.REFUND_SETTLEMENT)
        if total is not None:
            refund_settlement_record(
                refund_id=refund_id, total=SettledTotal(-total.amount, total.currency, total.posted_at)
            )


def _settled_total(entries: QuerySet[LedgerEntry], *, kind: str = EntryKind.SETTLEMENT) -> SettledTotal | None:
    """The net of the entries in the currency of the first of `kind` (None before there is one): what the
    processor paid for the payment, less what it took back for refunds and chargebacks. Entries in another currency
    (a processor that changed the payout currency) are left out of the sum and stay readable in the ledger."""
    rows = list(entries.order_by("posted_at", "id").values_list("kind", "net_amount", "net_currency", "posted_at"))
    first = next((row for row in rows if row[0] == kind), None)
    if first is None:
        return None
    currency = first[2]
    amount = sum(net for _, net, net_currency, _ in rows if net_currency == currency)
    return SettledTotal(amount=amount, currency=currency, posted_at=first[3])


# A payout's line is a file of its service's report of payouts, named by the payout, so it is ingested like every
# other line and at most once (docs/reconciliation.md, "Payouts to cards").
PAYOUT_REPORT = "payouts"
PAYOUT_PROCESSOR_TYPE = "card payout"


def ledger_payout_record(payout: Payout) -> IngestResult | None:
    """A succeeded payout's line in the ledger, once: money out of the merchant's balance at the processor (`net_amount`
    negative), posted when the processor confirmed it (its answer or its notification). A payout not succeeded, or
    already in the ledger (a repeated notification, a second recovery), adds nothing. Called by the payouts app as a
    payout succeeds (`payouts.services.payout_succeeded_register`), in the transaction that records it."""
    if payout.status != PayoutStatus.SUCCEEDED:
        return None
    service = payout.payment_service
    key = f"payout {payout.pk}"
    if LedgerEntry.objects.filter(
        merchant_account_id=payout.merchant_account_id, source=service.definition_id, entry_key=key
    ).exists():
        return None
    line = ParsedEntry(
        entry_key=key,
        kind=EntryKind.CARD_PAYOUT,
        processor_type=PAYOUT_PROCESSOR_TYPE,
        amount=payout.amount,
        currency=payout.currency,
        net_amount=-payout.amount,
        net_currency=payout.currency,
        posted_at=payout.updated_at,
        processor_reference=payout.payment_service_payout_id or "",
        merchant_reference=str(payout.pk),
    )
    content = json.dumps({**line.__dict__, "posted_at": line.posted_at.isoformat()}, sort_keys=True).encode()
    file = SettlementFile(
        source=service.definition_id,
        report_name=f"{PAYOUT_REPORT} {service.pk}",
        name=str(payout.pk),
        content=content,
        read=lambda _content: [line],
    )
    return settlement_file_ingest(merchant_account=payout.merchant_account, payment_service=service, file=file)
