"""PayPal's settlement records (the seam's `Settlements`), for each PayPal payment service: its account's balance
movements as PayPal's Transaction Search lists them (`GET /v1/reporting/transactions`, through `paypal-server-sdk`'s
own controller and OAuth client).

Each line is one ledger entry keyed by PayPal's transaction id: a payment received (its gross `transaction_amount`,
PayPal's fee in `fee_amount`, negative when PayPal takes it), a refund (the fee PayPal gives back is a negative
commission), a reversal or chargeback, a withdrawal to the bank (a payout), anything else a line of the account. Our
reference rides in each line's `custom_field` (the order's and the refund's `custom_id`), PayPal's id of what the line
reverses in `paypal_reference_id`.

PayPal answers at most 31 days a request and lists them a page at a time. The days are read in windows of 31 days
from where the last whole window ended (the first run goes back `FIRST_READ`), each page a file of the service's
report named by its window, its page and the window's page count, ingested as it comes. A window is whole when all its
pages are ingested; one that stops half-way is read again from its start. A window ends at the earliest of 31 days,
now, and the moment PayPal says its records are complete to (`last_refreshed_datetime`: a transaction takes up to
three hours to be listed), so nothing listed late falls between two windows. Lines already in the ledger add nothing.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Generator, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError

from payments.money import currency_exponent
from payments.validators import validate_currency
from paymentservices.processors.calls import NoAnswer, field_of
from paymentservices.processors.paypal.connector import PayPalConnector, PayPalRefused
from paymentservices.processors.settling import (
    Ledger,
    LineKind,
    PulledFile,
    SettledLine,
    Settlements,
    SettlementUnread,
    SettlementUnreadable,
)

REPORT_NAME = "transactions"
# PayPal's widest window a request may ask for, and its largest page.
WINDOW = timedelta(days=31)
PAGE_SIZE = 500
# How far back the first run of a service reads (PayPal lists three years; a service's payments are newer than it).
FIRST_READ = timedelta(days=93)
# PayPal's transaction event codes in ledger terms (its "Transaction event codes" reference): T00nn payments received
# (a negative one is a payment the account sent), T1107 a refund the merchant made, T1106 a reversal PayPal made and
# T1201 a chargeback, T1202 a chargeback reversed, T03nn/T04nn money moved to or from the bank; any other a line of
# the account.
CODES = {
    "T1107": LineKind.REFUND_SETTLEMENT,
    "T1106": LineKind.CHARGEBACK,
    "T1201": LineKind.CHARGEBACK,
    "T1202": LineKind.CHARGEBACK_REVERSAL,
}
PREFIXES = {"T00": LineKind.SETTLEMENT, "T03": LineKind.PAYOUT, "T04": LineKind.PAYOUT}
_FILE_NAME = re.compile(r"(?P<start>\S+)\.\.(?P<end>\S+) page (?P<page>\d+) of (?P<pages>\d+)")
_VALUE = re.compile(r"-?[0-9]+(\.[0-9]+)?")


class PayPalSettlements(Settlements):
    pulls = True

    def __init__(self, *, page_size: int = PAGE_SIZE, first_read: timedelta = FIRST_READ) -> None:
        self.page_size = page_size
        self.first_read = first_read

    def read(self, content: bytes) -> list[SettledLine]:
        return read_paypal_file(content)

    def pull(self, *, credentials: Mapping[str, str], ledger: Ledger) -> Iterator[PulledFile]:
        """Each page of each window from where the last whole window ended to now, oldest first."""
        connector = PayPalConnector(
            client_id=credentials.get("client_id", ""), client_secret=credentials.get("client_secret", "")
        )
        start: str | None = _resume(ledger.ingested(REPORT_NAME, "")) or _stamp(datetime.now(UTC) - self.first_read)
        try:
            while start is not None:
                start = yield from self._window(connector, start)
        except PayPalRefused as refused:
            message = field_of(refused.body, "message") or refused.status
            raise SettlementUnread(f"PayPal refused the transaction search: {message}") from None
        except NoAnswer as exc:
            raise SettlementUnread(f"PayPal gave no answer ({exc.code}).") from None

    def _window(self, connector: PayPalConnector, start: str) -> Generator[PulledFile, None, str | None]:
        """The pages of the window from `start` (31 days, or to now); the next window's start, or None when this one
        reaches what PayPal has listed."""
        now = datetime.now(UTC)
        end = min(_time(start) + WINDOW, now)
        query: dict[str, Any] = {
            "start_date": start,
            "end_date": _stamp(end),
            "fields": "transaction_info",
            "page_size": self.page_size,
        }
        page, pages, covered = 1, 1, end
        while page <= pages:
            answer = connector.transactions({**query, "page": page})
            if page == 1:
                pages = max(_count(answer, "total_pages"), 1)
                covered = max(_time(start), min(end, _refreshed(answer) or end))
            name = f"{start}..{_stamp(covered)} page {page} of {pages}"
            yield PulledFile(REPORT_NAME, name, json.dumps(answer, sort_keys=True).encode())
            page += 1
        return _stamp(end) if covered == end and end < now else None


def _resume(names: set[str]) -> str | None:
    """The end of the latest window whose pages are all ingested; before any is whole, the start of the first window
    begun (a first run cut short is read again from where it began, not from a new `first_read` back from now)."""
    pages: dict[tuple[str, str, int], set[int]] = defaultdict(set)
    for name in names:
        found = _FILE_NAME.fullmatch(name)
        if found:
            pages[(found["start"], found["end"], int(found["pages"]))].add(int(found["page"]))
    whole = [end for (_, end, count), seen in pages.items() if seen >= set(range(1, count + 1))]
    if whole:
        return max(whole, key=_time)
    return min((start for start, _, _ in pages), key=_time, default=None)


def _count(answer: Mapping[str, Any], key: str) -> int:
    value = answer.get(key)
    return value if type(value) is int and value >= 0 else 0


def _refreshed(answer: Mapping[str, Any]) -> datetime | None:
    try:
        return _time(str(answer["last_refreshed_datetime"]))
    except (KeyError, ValueError):
        return None


def _stamp(moment: datetime) -> str:
    """PayPal's date-time with seconds, in UTC."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _time(value: str) -> datetime:
    moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{value!r} has no offset")
    return moment


def read_paypal_file(content: bytes) -> list[SettledLine]:
    """A page of PayPal's Transaction Search answer: its `transaction_details` (none in a window without any)."""
    try:
        data = json.loads(content)
    except ValueError as error:
        raise SettlementUnreadable("The PayPal file is not JSON.") from error
    details = data.get("transaction_details", []) if isinstance(data, dict) else None
    if not isinstance(details, list):
        raise SettlementUnreadable("The PayPal file is not a page of transactions.")
    return [_line(detail, number) for number, detail in enumerate(details, start=1)]


def _line(detail: object, number: int) -> SettledLine:
    info = field_of(detail, "transaction_info")
    if not isinstance(info, dict):
        raise SettlementUnreadable(f"Transaction {number} of the PayPal file has no transaction_info.")
    try:
        gross, currency = _money(info["transaction_amount"])
        fee = _fee(info.get("fee_amount"), currency)
        code = str(info["transaction_event_code"])
        kind = _kind(code, gross)
        own = str(info["transaction_id"])
        original = str(info.get("paypal_reference_id") or "")
        reverses = kind in (LineKind.REFUND_SETTLEMENT, LineKind.CHARGEBACK, LineKind.CHARGEBACK_REVERSAL)
        return SettledLine(
            entry_key=own,
            kind=kind,
            processor_type=code,
            amount=abs(gross),
            currency=currency,
            net_amount=gross + fee,
            net_currency=currency,
            posted_at=_time(str(info.get("transaction_initiation_date") or info["transaction_updated_date"])),
            commission=-fee,
            fee_details=[{"type": "paypal_fee", "amount": -fee, "currency": currency}] if fee else [],
            processor_reference=original if reverses and original else own,
            modification_reference=own if reverses else "",
            merchant_reference=str(info.get("custom_field") or ""),
            payout_reference=own if kind == LineKind.PAYOUT else "",
        )
    except (KeyError, TypeError, ValueError, InvalidOperation) as error:
        raise SettlementUnreadable(
            f"Transaction {number} ({info.get('transaction_id')}) of the PayPal file is not readable ({error})."
        ) from error


def _kind(code: str, gross: int) -> str:
    kind = CODES.get(code) or PREFIXES.get(code[:3], LineKind.FEE)
    # A payment the account sent (a negative T00nn) is the account's, not a payment of ours settled.
    return LineKind.FEE if kind == LineKind.SETTLEMENT and gross < 0 else kind


def _money(money: object) -> tuple[int, str]:
    """PayPal's `Money` in minor units: an exact amount of its currency, or ValueError."""
    currency, value = field_of(money, "currency_code"), field_of(money, "value")
    if not isinstance(currency, str) or not isinstance(value, str) or _VALUE.fullmatch(value) is None:
        raise ValueError(f"{money!r} is not an amount")
    try:
        validate_currency(currency)
    except ValidationError:
        raise ValueError(f"{currency!r} is not an ISO 4217 currency") from None
    minor = Decimal(value).scaleb(currency_exponent(currency))
    if minor != minor.to_integral_value():
        raise ValueError(f"{value!r} has more decimals than {currency}")
    return int(minor), currency


def _fee(money: object, currency: str) -> int:
    """PayPal's fee on the line, signed as PayPal books it (negative: taken), in the line's currency."""
    if money is None:
        return 0
    fee, fee_currency = _money(money)
    if fee_currency != currency:
        raise ValueError(f"the fee is in {fee_currency}, the line in {currency}")
    return fee
