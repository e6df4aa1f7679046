"""The report models (upstream's `spec.model`): what each offers (fields, filters) and how it makes rows.

A model is one module here implementing `ReportSource`, registered in `SOURCES` by one line. Upstream's other models
are refused by name (`REFUSED`): a report this server could not run is never accepted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar
from zoneinfo import ZoneInfo

from django.db.models.expressions import OrderBy
from django_filters import FilterSet

from payments.accounts.models import MerchantAccount


class ParamsError(ValueError):
    """A report's `params` ask for something its model does not offer; `pointer` is under `/spec/params`."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(message)
        self.pointer = pointer
        self.message = message


FilterSetT = TypeVar("FilterSetT", bound=FilterSet)


def checked_filterset(filterset: FilterSetT, origin: Mapping[str, str]) -> FilterSetT:
    """`filterset` once it has found its query valid; else the first refusal, at the report filter that `origin`
    says the refused query parameter came from."""
    if not filterset.is_valid():
        parameter, errors = next(iter(filterset.errors.items()))
        raise ParamsError(origin.get(parameter, "/filters"), " ".join(str(error) for error in errors))
    return filterset


@dataclass(frozen=True)
class Run:
    """What one execution resolves its params against: the account, the reference time and the timezone."""

    merchant_account: MerchantAccount
    reference: datetime
    zone: ZoneInfo


class ReportSource(Protocol):
    """One report model: the columns it offers, the filters it takes, and its rows in a stable order."""

    name: str
    # Every column, in the order a report without `fields` has them.
    fields: Sequence[str]
    filters: frozenset[str]
    # Upstream fixes some models' columns: `fields` is then refused.
    fields_selectable: bool
    # The fields a report may be sorted by (`params.sort`), each with the column it is ordered on; a field computed
    # from others is not here.
    sortable: Mapping[str, str]
    # The date-time filter a period applies to (the support desk's "Period": today, this week, this month).
    date_filter: str

    def check(self, filters: Mapping[str, Any], run: Run) -> None:
        """Raise ParamsError for a filter value the model cannot use."""

    def rows(
        self, fields: Sequence[str], filters: Mapping[str, Any], run: Run, order: Sequence[OrderBy] = ()
    ) -> Iterator[list[Any]]:
        """The rows, a bounded batch at a time from the database, one value per field; in `order` first (from
        `params.sort`), then in the model's own order."""


SOURCES: dict[str, ReportSource] = {}

# Upstream's models this server does not offer, and why (the 400 says it).
REFUSED: dict[str, str] = {
    "transaction_retries": "This server keeps no retry attempts apart from the transaction's own history.",
    "ai_insights": "This server has no AI insights.",
}


def register(source: ReportSource) -> None:
    SOURCES[source.name] = source


def source_named(name: str) -> ReportSource | None:
    return SOURCES.get(name)
