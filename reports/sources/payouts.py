"""The `payouts` report model (ours: upstream reports no payouts): the rows `GET /payouts` answers for the same
filters, newest first, each read from the payout as the API renders it, so a report and the API never disagree.
Cards are masked as the API masks them: the last 4 digits, the scheme and the issuing country, never the number."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from django.db.models.expressions import OrderBy
from django.http import QueryDict

from payouts.api.filters import PayoutFilter
from payouts.api.serializers import PayoutOutput
from payouts.models import Payout
from payouts.selectors import payout_list
from reports.sources import ParamsError, Run, checked_filterset, register
from reports.sources.dates import date_range
from reports.sources.rendered import Rendered, cell, path

BATCH_SIZE = 2000

FIELDS: dict[str, Callable[[Rendered], Any]] = {
    "id": path("id"),
    "external_identifier": path("external_identifier"),
    "status": path("status"),
    "created_at": path("created_at"),
    "updated_at": path("updated_at"),
    "amount": path("amount"),
    "currency": path("currency"),
    "category": path("category"),
    "payment_service_payout_id": path("payment_service_payout_id"),
    "payment_service_id": path("payment_service", "id"),
    "payment_service_definition_id": path("payment_service", "payment_service_definition_id"),
    "payment_service_display_name": path("payment_service", "display_name"),
    "payment_method_id": path("payment_method", "id"),
    "payment_method_label": path("payment_method", "label"),
    "scheme": path("payment_method", "scheme"),
    "card_country": path("payment_method", "country"),
    "buyer_external_identifier": path("buyer", "external_identifier"),
}

SORTABLE: dict[str, str] = {
    **{
        name: name
        for name in (
            "id",
            "external_identifier",
            "status",
            "created_at",
            "updated_at",
            "amount",
            "currency",
            "category",
            "payment_service_payout_id",
            "payment_service_id",
            "payment_method_id",
        )
    },
    "payment_method_label": "card_last4",
    "scheme": "card_scheme",
    "card_country": "card_country",
    "payment_service_definition_id": "payment_service__definition_id",
    "payment_service_display_name": "payment_service__display_name",
}

_DATE_RANGES = ("created_at", "updated_at")
_TEXT = ("external_identifier", "payment_service_payout_id")
FILTERS = frozenset({*_DATE_RANGES, *_TEXT, "status"})


def _query(filters: Mapping[str, Any], run: Run) -> tuple[QueryDict, dict[str, str]]:
    """The list's query string for `filters`, and which report filter each query parameter came from."""
    query = QueryDict(mutable=True)
    origin: dict[str, str] = {}
    for name, value in filters.items():
        if name in _DATE_RANGES:
            start, end = date_range(name, value, run)
            for suffix, bound in (("gte", start), ("lte", end)):
                if bound is not None:
                    query[f"{name}_{suffix}"] = bound.isoformat()
                    origin[f"{name}_{suffix}"] = f"/filters/{name}/{'start' if suffix == 'gte' else 'end'}"
        elif name in _TEXT:
            if not isinstance(value, str):
                raise ParamsError(f"/filters/{name}", "Must be a string.")
            query[name] = value
            origin[name] = f"/filters/{name}"
        elif name == "status":
            values: list[Any] = value if isinstance(value, list) else [value]
            if not values or not all(isinstance(item, str) for item in values):
                raise ParamsError("/filters/status", "Must be a string or a non-empty list of strings.")
            query.setlist("status", values)
            origin["status"] = "/filters/status"
    return query, origin


def _filterset(filters: Mapping[str, Any], run: Run) -> PayoutFilter:
    query, origin = _query(filters, run)
    rows = payout_list(merchant_account=run.merchant_account)
    return checked_filterset(PayoutFilter(data=query, queryset=rows), origin)


class PayoutsSource:
    name = "payouts"
    fields: Sequence[str] = tuple(FIELDS)
    filters = FILTERS
    fields_selectable = True
    sortable: Mapping[str, str] = SORTABLE
    date_filter = "created_at"

    def check(self, filters: Mapping[str, Any], run: Run) -> None:
        _filterset(filters, run)

    def rows(
        self, fields: Sequence[str], filters: Mapping[str, Any], run: Run, order: Sequence[OrderBy] = ()
    ) -> Iterator[list[Any]]:
        queryset = _filterset(filters, run).qs.order_by(*order, "-created_at", "-id")
        extract = [FIELDS[name] for name in fields]
        output = PayoutOutput()
        payout: Payout
        for payout in queryset.iterator(chunk_size=BATCH_SIZE):
            rendered = output.to_representation(payout)
            yield [cell(value(rendered)) for value in extract]


register(PayoutsSource())
