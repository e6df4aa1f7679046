"""The settlements part of the processor seam: what a processor says it paid out, in words every processor shares.

A processor that publishes settlement records declares a `Settlements` (its `settlements` attribute, in its folder's
`settlements.py`): it reads one of its files into `SettledLine`s, the ledger's terms, and says how its files reach
us: pulled (`pulls` and `pull`: the processor is asked what is new) and/or announced (`takes`: a report its
notification named, an `AvailableReport`, downloaded with `download`). The settlements app records the lines the same
way for all; a processor never writes the ledger, and the ledger never reads a processor's file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import ClassVar

from paymentservices.processors.seam import AvailableReport

# The largest amount a line may carry, in minor units (ten trillion in a two-decimal currency): far beyond any real
# line, and far enough below the database's 64-bit integers that a transaction's lines add up within them.
MAX_LEDGER_AMOUNT = 10**15
# The decimals of an exchange rate the ledger keeps (`LedgerEntry.exchange_rate`), and its bound.
RATE_PLACES = 10
MAX_RATE = Decimal(10) ** 10


class LineKind:
    """What a line is (the ledger's `EntryKind`). The first four are upstream's record types and belong to a payment;
    a fee or a payout belongs to the account."""

    SETTLEMENT = "settlement"
    REFUND_SETTLEMENT = "refund-settlement"
    CHARGEBACK = "chargeback"
    CHARGEBACK_REVERSAL = "chargeback-reversal"
    FEE = "fee"
    PAYOUT = "payout"


class SettlementUnreadable(Exception):
    """A settlement file that cannot be read whole: the message names the line and what is wrong with it."""


class SettlementUnread(Exception):
    """A processor's settlement records were not fetched (it did not answer, refused the key, a URL not its own):
    the message says why, safe to show (never a key). Nothing was read; the next run tries again."""


@dataclass(frozen=True)
class SettledLine:
    """One line of a processor's file, read into the ledger's terms (see `LedgerEntry` for each field)."""

    entry_key: str
    kind: str
    processor_type: str
    amount: int
    currency: str
    net_amount: int
    net_currency: str
    posted_at: datetime
    commission: int = 0
    interchange: int | None = None
    markup: int | None = None
    scheme_fee: int | None = None
    fee_details: list[dict[str, object]] = field(default_factory=list)
    exchange_rate: Decimal | None = None
    processor_reference: str = ""
    modification_reference: str = ""
    merchant_reference: str = ""
    available_on: date | None = None
    payout_reference: str = ""


@dataclass(frozen=True)
class PulledFile:
    """A file a processor answered when asked what is new: the report it belongs to and its name there (as the
    processor names them), and its bytes (read back with `Settlements.read`)."""

    report_name: str
    name: str
    content: bytes


@dataclass(frozen=True)
class Ledger:
    """What the ledger already holds of one payment service's records, asked by a processor reading down to it:
    `known(keys)` the line keys among `keys` it holds, `ingested(report_name, prefix)` the names of the files of a
    report (starting with `prefix`) it ingested."""

    known: Callable[[list[str]], set[str]]
    ingested: Callable[[str, str], set[str]]


class Settlements:
    """A processor's settlement records. `read` is its own; the rest says how its files reach us (by default: none
    pulled, none announced)."""

    # Whether `pull` asks the processor, for each of its payment services, on each `ingest-settlements` run.
    pulls: ClassVar[bool] = False

    def read(self, content: bytes) -> list[SettledLine]:
        """One of its files read whole into lines, or `SettlementUnreadable` naming the line and what is wrong."""
        raise NotImplementedError

    def pull(self, *, credentials: Mapping[str, str], ledger: Ledger) -> Iterator[PulledFile]:
        """The files not in the ledger yet for one payment service (its credentials), oldest first, so a run that
        stops leaves no gap; `SettlementUnread` when the processor does not answer."""
        return iter(())

    def takes(self, report: AvailableReport) -> bool:
        """Whether a report its notification announced is a settlement report to fetch."""
        return False

    def report_allowed(self, url: str) -> bool:
        """Whether an announced report's URL is on the processor's report hosts (asked before it is kept or used)."""
        return False

    def download(self, *, url: str, credentials: Mapping[str, str]) -> bytes:
        """An announced report's bytes, fetched with a service's credentials; `SettlementUnread` when not."""
        raise SettlementUnread("This processor announces no settlement reports.")
