"""Stripe's settlement records, for each Stripe payment service: its account's balance transactions and paid payouts.

Stripe books every movement of an account's balance as a balance transaction: a captured charge (gross `amount`,
Stripe's `fee` itemized in `fee_details`, `net`, the day the money is `available_on`), a refund, a dispute and its
reversal, Stripe's own fees, a payout. Each is one ledger entry, keyed by its id, from the day Stripe books it (its
fee and net are final then; `available_on` says when it can be paid out). A paid payout is one more entry, and with
it the balance transactions it paid (Stripe lists them for automatic payouts), whose entries then name it.

Read newest first, a page at a time, until a page holds nothing new; then ingested oldest page first, each page a file
of the service's report (`balance history <service id>`), so a run that stops leaves no gap: the next one reads down
to what is in the ledger. A payout is a file of its own (`payout <id>`), ingested once.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError

from payments.validators import validate_currency
from paymentservices.models import PaymentService
from paymentservices.processors import stripe
from paymentservices.services import CredentialsUnusable, payment_service_connector_credentials
from settlements.models import EntryKind, FileStatus, LedgerEntry, SettlementReportFile, Source
from settlements.services import (
    MAX_RATE,
    RATE_PLACES,
    FileUnreadable,
    IngestResult,
    ParsedEntry,
    SettlementFile,
    settlement_file_ingest,
)

logger = logging.getLogger(__name__)

# The payment services whose settlement records this source reads (paymentservices.definitions).
DEFINITION_ID = stripe.PROCESSOR.id

# Stripe's balance transaction types in ledger terms; any other type (Stripe's own fees, adjustments, transfers, ...)
# is a fee line of the account.
KINDS = {
    "charge": EntryKind.SETTLEMENT,
    "payment": EntryKind.SETTLEMENT,
    "refund": EntryKind.REFUND_SETTLEMENT,
    "payment_refund": EntryKind.REFUND_SETTLEMENT,
    "payment_failure_refund": EntryKind.REFUND_SETTLEMENT,
    "payout": EntryKind.PAYOUT,
}
# Disputes are adjustments, told apart by their reporting category.
CATEGORIES = {"dispute": EntryKind.CHARGEBACK, "dispute_reversal": EntryKind.CHARGEBACK_REVERSAL}
Record = dict[str, Any]


def settlements_stripe_ingest(*, page_size: int = 100) -> list[IngestResult]:
    """Ingest what is new at Stripe for every Stripe payment service (deleted ones too: their payments still settle).
    A service Stripe does not answer for (or whose key is refused) is logged and left for the next run."""
    results: list[IngestResult] = []
    for service in PaymentService.objects.filter(definition_id=stripe.PROCESSOR.id).order_by("created_at"):
        try:
            secret_key = payment_service_connector_credentials(service=service)["secret_key"]
            results += _ingest_history(service, secret_key, page_size)
            results += _ingest_payouts(service, secret_key, page_size)
        except (CredentialsUnusable, stripe.BalanceUnread) as error:
            logger.warning(
                "Stripe settlements of payment service %s not read (%s): %s", service.pk, type(error).__name__, error
            )
    return results


def _report_name(service: PaymentService) -> str:
    return f"balance history {service.pk}"


def _known(service: PaymentService, keys: list[str]) -> set[str]:
    return set(
        LedgerEntry.objects.filter(
            merchant_account_id=service.merchant_account_id, source=Source.STRIPE, entry_key__in=keys
        ).values_list("entry_key", flat=True)
    )


def _ingest_history(service: PaymentService, secret_key: str, page_size: int) -> list[IngestResult]:
    """The balance transactions not in the ledger, a file a page, oldest page first."""
    pages = stripe.balance_history(secret_key, page_size=page_size)
    fresh = _down_to_known(pages, lambda page: _known(service, [entry_key(record) for record in page]), entry_key)
    names = [f"balance transactions {page[-1]['id']}..{page[0]['id']}" for page in fresh]
    return [_ingest(service, name, page) for name, page in reversed(list(zip(names, fresh, strict=True)))]


def _ingest_payouts(service: PaymentService, secret_key: str, page_size: int) -> list[IngestResult]:
    """Each paid payout not ingested yet (oldest first), a file each, with the balance transactions it paid."""
    done = set(
        SettlementReportFile.objects.filter(
            report__merchant_account_id=service.merchant_account_id,
            report__source=Source.STRIPE,
            report__name=_report_name(service),
            name__startswith="payout ",
            status=FileStatus.INGESTED,
        ).values_list("name", flat=True)
    )
    pages = stripe.paid_payouts(secret_key, page_size=page_size)
    fresh = [payout for page in _down_to_known(pages, lambda page: done, _payout_name) for payout in page]
    return [
        _ingest(
            service,
            _payout_name(payout),
            {"payout": payout, "paid": stripe.payout_balance_transactions(secret_key, payout, page_size=page_size)},
        )
        for payout in reversed(fresh)
        if _payout_name(payout) not in done
    ]


def _payout_name(payout: Record) -> str:
    return f"payout {payout['id']}"


def _down_to_known(
    pages: Iterator[list[Record]], known: Callable[[list[Record]], set[str]], key: Callable[[Record], str]
) -> list[list[Record]]:
    """The pages (newest first) that hold something not known yet, read down to what is known. Stripe orders by the
    second an object was made, so the read stops at a page of known objects only once it is past the second of the
    newest known one (an object made in that same second may be listed after it)."""
    fresh: list[list[Record]] = []
    newest_known: int | None = None
    for page in pages:
        known_keys = known(page)
        seconds = [int(record.get("created") or 0) for record in page if key(record) in known_keys]
        newest_known = max([*seconds, newest_known or 0]) if seconds else newest_known
        if any(key(record) not in known_keys for record in page):
            fresh.append(page)
        elif newest_known is not None and int(page[-1].get("created") or 0) < newest_known:
            break
    return fresh


def _ingest(service: PaymentService, name: str, content: object) -> IngestResult:
    file = SettlementFile(
        source=Source.STRIPE,
        report_name=_report_name(service),
        name=name,
        content=json.dumps(content, sort_keys=True).encode(),
        read=read_stripe_file,
    )
    return settlement_file_ingest(merchant_account=service.merchant_account, payment_service=service, file=file)


def read_stripe_file(content: bytes) -> list[ParsedEntry]:
    """A page of balance transactions (a JSON list), or a payout with the balance transactions it paid."""
    try:
        data = json.loads(content)
    except ValueError as error:
        raise FileUnreadable("The Stripe file is not JSON.") from error
    if isinstance(data, list):
        return [_balance_entry(record, number) for number, record in enumerate(data, start=1)]
    if not isinstance(data, dict) or not isinstance(data.get("paid"), list):
        raise FileUnreadable("The Stripe file is neither balance transactions nor a payout.")
    payout = _payout_entry(data.get("payout"))
    paid = [_balance_entry(record, number) for number, record in enumerate(data["paid"], start=1)]
    # Stripe lists the payout's own balance transaction among those it paid: it is the payout's entry.
    return [payout] + [entry for entry in paid if entry.entry_key != payout.entry_key]


def entry_key(record: Record) -> str:
    """A balance transaction's id; a payout's is the payout's own id, whichever way it comes (its balance transaction
    in the history, or the payout), so it is one entry."""
    if record.get("type") == "payout" and isinstance(record.get("source"), str):
        return f"payout {record['source']}"
    return str(record.get("id"))


def _balance_entry(record: object, number: int) -> ParsedEntry:
    if not isinstance(record, dict):
        raise FileUnreadable(f"Balance transaction {number} of the Stripe file is not an object.")
    try:
        currency = _currency(record["currency"])
        kind = CATEGORIES.get(str(record.get("reporting_category")), KINDS.get(str(record["type"]), EntryKind.FEE))
        source = record.get("source") or ""
        return ParsedEntry(
            entry_key=entry_key(record),
            kind=kind,
            processor_type=str(record["type"]),
            amount=abs(_integer(record["amount"])),
            currency=currency,
            net_amount=_integer(record["net"]),
            net_currency=currency,
            posted_at=_time(record["created"]),
            commission=_integer(record["fee"]),
            fee_details=[_fee_detail(detail) for detail in record.get("fee_details") or []],
            exchange_rate=_rate(record.get("exchange_rate")),
            processor_reference=str(record.get("payment_intent") or source),
            modification_reference=str(source),
            merchant_reference=str(record.get("reference") or ""),
            available_on=_day(record["available_on"]),
            payout_reference=str(record.get("payout") or (source if kind == EntryKind.PAYOUT else "")),
        )
    except (KeyError, TypeError, ValueError, InvalidOperation) as error:
        raise FileUnreadable(
            f"Balance transaction {number} ({record.get('id')}) of the Stripe file is not readable ({error})."
        ) from error


def _payout_entry(payout: object) -> ParsedEntry:
    if not isinstance(payout, dict):
        raise FileUnreadable("The Stripe payout file has no payout.")
    try:
        amount = _integer(payout["amount"])
        return ParsedEntry(
            entry_key=f"payout {payout['id']}",
            kind=EntryKind.PAYOUT,
            processor_type="payout",
            amount=amount,
            currency=_currency(payout["currency"]),
            net_amount=-amount,
            net_currency=_currency(payout["currency"]),
            posted_at=_time(payout["arrival_date"]),
            processor_reference=str(payout["id"]),
            payout_reference=str(payout["id"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise FileUnreadable(f"The payout of the Stripe file is not readable ({error}).") from error


def _integer(value: object) -> int:
    if type(value) is not int:
        raise ValueError(f"{value!r} is not an amount")
    return value


def _currency(value: object) -> str:
    code = str(value).upper()
    try:
        validate_currency(code)
    except ValidationError:
        raise ValueError(f"{value!r} is not an ISO 4217 currency") from None
    return code


def _time(value: object) -> datetime:
    return datetime.fromtimestamp(_integer(value), tz=UTC)


def _day(value: object) -> date:
    return _time(value).date()


def _rate(value: object) -> Decimal | None:
    """Stripe's rate (a JSON number) rounded to the ten decimals the ledger keeps; positive and below 10^10."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{value!r} is not an exchange rate")
    rate = Decimal(str(value))
    if not rate.is_finite() or not 0 < rate < MAX_RATE:
        raise ValueError(f"{value!r} is not an exchange rate")
    rate = rate.quantize(Decimal(1).scaleb(-RATE_PLACES), rounding=ROUND_HALF_EVEN)
    if rate <= 0:
        raise ValueError(f"{value!r} is not an exchange rate")
    return rate


def _fee_detail(detail: object) -> dict[str, object]:
    if not isinstance(detail, dict):
        raise ValueError("a fee detail is not an object")
    return {
        "type": str(detail.get("type")),
        "amount": _integer(detail.get("amount")),
        "currency": _currency(detail.get("currency")),
        "description": str(detail.get("description") or ""),
    }
