"""Stripe's settlement records (the seam's `Settlements`), for each Stripe payment service: its account's balance
transactions and paid payouts.

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
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError

from payments.validators import validate_currency
from paymentservices.processors.settling import (
    MAX_RATE,
    RATE_PLACES,
    Ledger,
    LineKind,
    PulledFile,
    SettledLine,
    Settlements,
    SettlementUnread,
    SettlementUnreadable,
)
from paymentservices.processors.stripe.balance import (
    BalanceUnread,
    balance_history,
    paid_payouts,
    payout_balance_transactions,
)

# Stripe's balance transaction types in ledger terms; any other type (Stripe's own fees, adjustments, transfers, ...)
# is a fee line of the account.
KINDS = {
    "charge": LineKind.SETTLEMENT,
    "payment": LineKind.SETTLEMENT,
    "refund": LineKind.REFUND_SETTLEMENT,
    "payment_refund": LineKind.REFUND_SETTLEMENT,
    "payment_failure_refund": LineKind.REFUND_SETTLEMENT,
    "payout": LineKind.PAYOUT,
}
# Disputes are adjustments, told apart by their reporting category.
CATEGORIES = {"dispute": LineKind.CHARGEBACK, "dispute_reversal": LineKind.CHARGEBACK_REVERSAL}
Record = dict[str, Any]
# The report each service's files belong to; a file is a page of balance transactions or a payout.
REPORT_NAME = "balance history"
PAGE_SIZE = 100


class StripeSettlements(Settlements):
    pulls = True

    def __init__(self, *, page_size: int = PAGE_SIZE) -> None:
        self.page_size = page_size

    def read(self, content: bytes) -> list[SettledLine]:
        return read_stripe_file(content)

    def pull(self, *, credentials: Mapping[str, str], ledger: Ledger) -> Iterator[PulledFile]:
        """The pages of balance transactions not in the ledger (oldest page first), then each paid payout not
        ingested yet (oldest first) with the balance transactions it paid."""
        try:
            yield from _history(credentials["secret_key"], ledger, self.page_size)
            yield from _payouts(credentials["secret_key"], ledger, self.page_size)
        except BalanceUnread as error:
            raise SettlementUnread(str(error)) from error


def _history(secret_key: str, ledger: Ledger, page_size: int) -> list[PulledFile]:
    pages = balance_history(secret_key, page_size=page_size)
    fresh = _down_to_known(pages, lambda page: ledger.known([entry_key(record) for record in page]), entry_key)
    return [
        PulledFile(REPORT_NAME, f"balance transactions {page[-1]['id']}..{page[0]['id']}", _json(page))
        for page in reversed(fresh)
    ]


def _payouts(secret_key: str, ledger: Ledger, page_size: int) -> Iterator[PulledFile]:
    done = ledger.ingested(REPORT_NAME, "payout ")
    pages = paid_payouts(secret_key, page_size=page_size)
    fresh = [payout for page in _down_to_known(pages, lambda page: done, _payout_name) for payout in page]
    for payout in reversed(fresh):
        if _payout_name(payout) not in done:
            paid = payout_balance_transactions(secret_key, payout, page_size=page_size)
            yield PulledFile(REPORT_NAME, _payout_name(payout), _json({"payout": payout, "paid": paid}))


def _json(content: object) -> bytes:
    return json.dumps(content, sort_keys=True).encode()


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


def read_stripe_file(content: bytes) -> list[SettledLine]:
    """A page of balance transactions (a JSON list), or a payout with the balance transactions it paid."""
    try:
        data = json.loads(content)
    except ValueError as error:
        raise SettlementUnreadable("The Stripe file is not JSON.") from error
    if isinstance(data, list):
        return [_balance_entry(record, number) for number, record in enumerate(data, start=1)]
    if not isinstance(data, dict) or not isinstance(data.get("paid"), list):
        raise SettlementUnreadable("The Stripe file is neither balance transactions nor a payout.")
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


def _balance_entry(record: object, number: int) -> SettledLine:
    if not isinstance(record, dict):
        raise SettlementUnreadable(f"Balance transaction {number} of the Stripe file is not an object.")
    try:
        currency = _currency(record["currency"])
        kind = CATEGORIES.get(str(record.get("reporting_category")), KINDS.get(str(record["type"]), LineKind.FEE))
        source = record.get("source") or ""
        return SettledLine(
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
            payout_reference=str(record.get("payout") or (source if kind == LineKind.PAYOUT else "")),
        )
    except (KeyError, TypeError, ValueError, InvalidOperation) as error:
        raise SettlementUnreadable(
            f"Balance transaction {number} ({record.get('id')}) of the Stripe file is not readable ({error})."
        ) from error


def _payout_entry(payout: object) -> SettledLine:
    if not isinstance(payout, dict):
        raise SettlementUnreadable("The Stripe payout file has no payout.")
    try:
        amount = _integer(payout["amount"])
        return SettledLine(
            entry_key=f"payout {payout['id']}",
            kind=LineKind.PAYOUT,
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
        raise SettlementUnreadable(f"The payout of the Stripe file is not readable ({error}).") from error


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
