"""The `detailed_settlement` and `accounts_receivables` report models: the settlement ledger's lines
(settlements.selectors.ledger_entries), as upstream fixes their columns (no `fields`), filtered by a date-time range.

Amounts are in minor units, as everywhere in the API: `gross_*` in `currency`, fees and `net_*` in `net_currency`.
A credit is money the line adds to the merchant's balance (a settlement, a chargeback reversal), a debit money it
takes (a refund, a chargeback, a fee); each line fills one side. A line that matched none of our transactions is
exported too, with an empty `transaction_id`: a report never drops what the processor said (docs/reports.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db.models.expressions import OrderBy

from reports.sources import ParamsError, Run, register
from reports.sources.dates import date_range
from settlements.models import PAYMENT_KINDS, LedgerEntry
from settlements.selectors import ledger_entries

BATCH_SIZE = 2000

Column = Callable[[LedgerEntry], Any]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat(timespec="microseconds") if value is not None else None


def _service(entry: LedgerEntry, attribute: str) -> Any:
    """The payment service of the line's transaction, or of its payout (a card-payout line)."""
    if entry.transaction is not None:
        service = entry.transaction.payment_service
    else:
        service = entry.payout.payment_service if entry.payout is not None else None
    return getattr(service, attribute) if service is not None else None


def _credit(entry: LedgerEntry) -> bool:
    return entry.net_amount >= 0


DETAILED_SETTLEMENT: dict[str, Column] = {
    "reconciliation_id": lambda e: e.transaction.reconciliation_id if e.transaction else e.merchant_reference,
    "transaction_id": lambda e: e.transaction_id,
    "payment_service_transaction_id": lambda e: e.processor_reference,
    "payment_service_id": lambda e: _service(e, "pk"),
    "payment_service_definition_id": lambda e: _service(e, "definition_id"),
    "payment_service_display_name": lambda e: _service(e, "display_name"),
    "journal_type": lambda e: e.kind,
    "raw_journal_type": lambda e: e.processor_type,
    "created_at": lambda e: _iso(e.transaction.created_at) if e.transaction else None,
    "posted_at": lambda e: _iso(e.posted_at),
    "currency": lambda e: e.currency,
    "gross_credit": lambda e: e.amount if _credit(e) else None,
    "gross_debit": lambda e: None if _credit(e) else e.amount,
    "net_currency": lambda e: e.net_currency,
    "net_credit": lambda e: e.net_amount if _credit(e) else None,
    "net_debit": lambda e: None if _credit(e) else -e.net_amount,
    "commission": lambda e: e.commission,
    "interchange": lambda e: e.interchange,
    "markup": lambda e: e.markup,
    "scheme_fee": lambda e: e.scheme_fee,
    "exchange_rate": lambda e: str(e.exchange_rate) if e.exchange_rate is not None else None,
    "batch": lambda e: e.payout_reference or None,
    "payment_service_modification_reference": lambda e: e.modification_reference or None,
    "report_id": lambda e: e.report_id,
    "raw_report_id": lambda e: e.report.name,
    "ingested_at": lambda e: _iso(e.created_at),
}

# What the processor owes for each payment line: its net, when it becomes available, and the payout that paid it
# (empty while it is still receivable).
ACCOUNTS_RECEIVABLES: dict[str, Column] = {
    "timestamp": lambda e: _iso(e.posted_at),
    "id": lambda e: e.pk,
    "transaction_id": lambda e: e.transaction_id,
    "reconciliation_id": lambda e: e.transaction.reconciliation_id if e.transaction else e.merchant_reference,
    "payment_service_transaction_id": lambda e: e.processor_reference,
    "journal_type": lambda e: e.kind,
    "currency": lambda e: e.currency,
    "amount": lambda e: e.amount,
    "commission": lambda e: e.commission,
    "net_currency": lambda e: e.net_currency,
    "net_amount": lambda e: e.net_amount,
    "available_on": lambda e: e.available_on.isoformat() if e.available_on else None,
    "payout": lambda e: e.payout_reference or None,
}


# The columns a ledger report may be sorted by, each with the ledger's column (credit and debit are computed).
SORTABLE: dict[str, str] = {
    "transaction_id": "transaction_id",
    "payment_service_transaction_id": "processor_reference",
    "journal_type": "kind",
    "raw_journal_type": "processor_type",
    "created_at": "transaction__created_at",
    "posted_at": "posted_at",
    "timestamp": "posted_at",
    "currency": "currency",
    "amount": "amount",
    "net_currency": "net_currency",
    "net_amount": "net_amount",
    "commission": "commission",
    "interchange": "interchange",
    "markup": "markup",
    "scheme_fee": "scheme_fee",
    "available_on": "available_on",
    "payout": "payout_reference",
    "ingested_at": "created_at",
    "id": "id",
}


class LedgerSource:
    """A ledger report model: fixed columns, one date-time filter on when the processor posted the line."""

    fields_selectable = False

    def __init__(self, name: str, columns: dict[str, Column], *, date_filter: str, kinds: list[str] | None) -> None:
        self.name = name
        self.columns = columns
        self.fields: Sequence[str] = tuple(columns)
        self.sortable: Mapping[str, str] = {name: column for name, column in SORTABLE.items() if name in columns}
        self.date_filter = date_filter
        self.filters = frozenset({date_filter})
        self.kinds = kinds

    def _bounds(self, filters: Mapping[str, Any], run: Run) -> tuple[datetime | None, datetime | None]:
        if self.date_filter not in filters:
            return None, None
        start, end = date_range(self.date_filter, filters[self.date_filter], run)
        # The ledger's upper bound is exclusive; the filter's end is the last instant it includes.
        return start, end + timedelta(microseconds=1) if end is not None else None

    def check(self, filters: Mapping[str, Any], run: Run) -> None:
        try:
            self._bounds(filters, run)
        except OverflowError:
            raise ParamsError(f"/filters/{self.date_filter}/end", "Must be before 9999-12-31.") from None

    def rows(
        self, fields: Sequence[str], filters: Mapping[str, Any], run: Run, order: Sequence[OrderBy] = ()
    ) -> Iterator[list[Any]]:
        start, end = self._bounds(filters, run)
        entries = ledger_entries(
            merchant_account=run.merchant_account, kinds=self.kinds, posted_from=start, posted_before=end
        ).select_related("transaction__payment_service", "payout__payment_service")
        if order:
            entries = entries.order_by(*order, "posted_at", "id")
        extract = [self.columns[name] for name in fields]
        for entry in entries.iterator(chunk_size=BATCH_SIZE):
            yield [column(entry) for column in extract]


register(LedgerSource("detailed_settlement", DETAILED_SETTLEMENT, date_filter="posted_at", kinds=None))
register(LedgerSource("accounts_receivables", ACCOUNTS_RECEIVABLES, date_filter="timestamp", kinds=list(PAYMENT_KINDS)))
