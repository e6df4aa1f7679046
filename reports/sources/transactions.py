"""The `transactions` report model: the rows `GET /transactions` answers for the same filters, in its order.

The filters are upstream's report filters turned into the list's own query parameters and run through the list's
own FilterSet, and each field is a value of the transaction as the API renders it, so a report and the API never
disagree about which transactions match or what a field holds (docs/reports.md lists both).

A report may hold a million rows, so a row is not a model rendered by the API's whole serializer: it is read as the
columns its fields need (`.values()`, one statement for the whole report) and only the parts of the API's rendering
those fields read are rendered from them, each by the API's own field or rule
(reports/tests/test_transactions_rendering.py pins every field equal to `GET /transactions/{id}`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models.expressions import OrderBy
from django.http import QueryDict

from reports.sources import ParamsError, Run, checked_filterset, register
from reports.sources.dates import date_range
from reports.sources.rendered import Rendered, cell, path
from transactions.api.filters import TransactionFilter
from transactions.api.serializers.outputs import TransactionBuyerOutput, TransactionOutput, intent_outcome
from transactions.models import method_pays_by_card, method_pays_with_method
from transactions.selectors import transaction_list

# Rows read from the database at a time: memory stays bounded whatever the report's size.
BATCH_SIZE = 2000


Row = dict[str, Any]


@dataclass(frozen=True)
class Part:
    """A top-level key of the API's rendering of a transaction: the columns it is rendered from, and how."""

    columns: tuple[str, ...]
    render: Callable[[Row], Any]


_API_FIELDS = TransactionOutput().fields
_BUYER = TransactionBuyerOutput()


def _as_api(name: str) -> Part:
    """The column `name` rendered by the API's field of that name (a nested one too), as its serializer does."""
    render = _API_FIELDS[name].to_representation

    def value(row: Row) -> Any:
        stored = row[name]
        return None if stored is None else render(stored)

    return Part((name,), value)


def _payment_method(row: Row) -> Rendered | None:
    # The card's scheme is the one part of the payment method a report has; a PayPal account has no scheme.
    if not method_pays_with_method(row["method"]):
        return None
    scheme = row["card_scheme"] if method_pays_by_card(row["method"]) else None
    return {"scheme": None if scheme is None else str(scheme)}


def _payment_service(row: Row) -> Rendered | None:
    if row["payment_service_id"] is None:
        return None
    return {
        "id": str(row["payment_service_id"]),
        "payment_service_definition_id": row["payment_service__definition_id"],
        "display_name": row["payment_service__display_name"],
    }


def _buyer(row: Row) -> Rendered | None:
    # As `get_buyer`: no details (or empty ones) are no buyer.
    details = row["buyer_details"]
    return _BUYER.to_representation(details) if details else None


def _intent_outcome(row: Row) -> str:
    return intent_outcome(
        status=row["status"], intent=row["intent"], authorized_at=row["authorized_at"], captured_at=row["captured_at"]
    )


# What a report can read of the API's rendering, by top-level key.
PARTS: dict[str, Part] = {
    **{
        name: _as_api(name)
        for name in (
            "id",
            "external_identifier",
            "status",
            "created_at",
            "updated_at",
            "authorized_at",
            "captured_at",
            "voided_at",
            "amount",
            "currency",
            "authorized_amount",
            "captured_amount",
            "refunded_amount",
            "settled_currency",
            "settled_amount",
            "method",
            "payment_service_transaction_id",
            "auth_response_code",
            "raw_response_code",
            "raw_response_description",
            "metadata",
            "is_subsequent_payment",
            "merchant_initiated",
            "payment_source",
            "three_d_secure",
        )
    },
    # The model's `settled`: the processor's settlement records name it.
    "settled": Part(("settled_at",), lambda row: row["settled_at"] is not None),
    "payment_method": Part(("method", "card_scheme"), _payment_method),
    "payment_service": Part(
        ("payment_service_id", "payment_service__definition_id", "payment_service__display_name"), _payment_service
    ),
    "intent_outcome": Part(("status", "intent", "authorized_at", "captured_at"), _intent_outcome),
    "buyer": Part(("buyer_details",), _buyer),
    # Ours: the payment link the transaction paid, which the API keeps to its filter.
    "payment_link_id": Part(
        ("payment_link_id",), lambda row: str(row["payment_link_id"]) if row["payment_link_id"] else None
    ),
}


def _billing(*keys: str) -> tuple[str, ...]:
    return ("buyer", "billing_details", *keys)


# Upstream's report fields this server can fill, each the path of its value in the transaction as the API renders it.
FIELDS: dict[str, tuple[str, ...]] = {
    "id": ("id",),
    "external_identifier": ("external_identifier",),
    "status": ("status",),
    "created_at": ("created_at",),
    "updated_at": ("updated_at",),
    "authorized_at": ("authorized_at",),
    "captured_at": ("captured_at",),
    "voided_at": ("voided_at",),
    "amount": ("amount",),
    "currency": ("currency",),
    "authorized_amount": ("authorized_amount",),
    "captured_amount": ("captured_amount",),
    "refunded_amount": ("refunded_amount",),
    "settled": ("settled",),
    "settled_currency": ("settled_currency",),
    "settled_amount": ("settled_amount",),
    "method": ("method",),
    "scheme": ("payment_method", "scheme"),
    "payment_service_transaction_id": ("payment_service_transaction_id",),
    "payment_service_id": ("payment_service", "id"),
    "payment_service_definition_id": ("payment_service", "payment_service_definition_id"),
    "payment_service_display_name": ("payment_service", "display_name"),
    "auth_response_code": ("auth_response_code",),
    "raw_response_code": ("raw_response_code",),
    "raw_response_description": ("raw_response_description",),
    "metadata": ("metadata",),
    "is_subsequent_payment": ("is_subsequent_payment",),
    "merchant_initiated": ("merchant_initiated",),
    "payment_source": ("payment_source",),
    "intent_outcome": ("intent_outcome",),
    "three_d_secure_status": ("three_d_secure", "status"),
    "three_d_secure_eci": ("three_d_secure", "response_data", "eci"),
    "three_d_secure_auth_resp": ("three_d_secure", "response_data", "authentication_response"),
    "three_d_secure_method": ("three_d_secure", "method"),
    "buyer_external_identifier": ("buyer", "external_identifier"),
    "billing_details_first_name": _billing("first_name"),
    "billing_details_last_name": _billing("last_name"),
    "billing_details_email_address": _billing("email_address"),
    "billing_details_phone_number": _billing("phone_number"),
    "billing_details_address_city": _billing("address", "city"),
    "billing_details_address_country": _billing("address", "country"),
    "billing_details_address_postal_code": _billing("address", "postal_code"),
    "billing_details_address_state": _billing("address", "state"),
    "billing_details_address_state_code": _billing("address", "state_code"),
    "billing_details_address_house_number_or_name": _billing("address", "house_number_or_name"),
    "billing_details_address_line1": _billing("address", "line1"),
    "billing_details_address_line2": _billing("address", "line2"),
    "billing_details_address_organization": _billing("address", "organization"),
    "billing_details_tax_id": _billing("tax_id", "value"),
    "billing_details_tax_id_kind": _billing("tax_id", "kind"),
    # Ours (docs/reports.md): the payment link the transaction paid, which the API finds through the list's filter.
    "payment_link_id": ("payment_link_id",),
}

# The fields a report may be sorted by, each with its column (the others are computed from several, or JSON).
SORTABLE: dict[str, str] = {
    **{
        name: name
        for name in (
            "id",
            "external_identifier",
            "status",
            "created_at",
            "updated_at",
            "authorized_at",
            "captured_at",
            "voided_at",
            "amount",
            "currency",
            "authorized_amount",
            "captured_amount",
            "refunded_amount",
            "method",
            "payment_service_transaction_id",
            "payment_service_id",
            "auth_response_code",
            "raw_response_code",
            "raw_response_description",
            "is_subsequent_payment",
            "merchant_initiated",
            "payment_source",
            "buyer_external_identifier",
            "payment_link_id",
        )
    },
    "scheme": "card_scheme",
    "payment_service_definition_id": "payment_service__definition_id",
    "payment_service_display_name": "payment_service__display_name",
}

# Report filters that are a list of values (or one value) of a list filter of the same meaning.
_VALUES = {
    "status": "status",
    "currency": "currency",
    "method": "method",
    "scheme": "payment_method_scheme",
    "payment_source": "payment_source",
    "payment_service_id": "payment_service_id",
    "error_code": "error_code",
    "country": "country",
}
_TEXT = {
    "external_identifier": "external_identifier",
    "buyer_external_identifier": "buyer_external_identifier",
    "payment_link_id": "payment_link_id",
}
_FLAGS = {"is_subsequent_payment": "is_subsequent_payment", "merchant_initiated": "merchant_initiated"}
_DATE_RANGES = {"created_at": "created_at", "updated_at": "updated_at"}
FILTERS = frozenset({*_VALUES, *_TEXT, *_FLAGS, *_DATE_RANGES, "metadata"})


def _values(name: str, value: object) -> list[str]:
    values: list[Any] = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(item, str) for item in values):
        raise ParamsError(f"/filters/{name}", "Must be a string or a non-empty list of strings.")
    return values


def _query(filters: Mapping[str, Any], run: Run) -> tuple[QueryDict, dict[str, str]]:
    """The list's query string for `filters`, and which report filter each query parameter came from."""
    query = QueryDict(mutable=True)
    origin: dict[str, str] = {}
    for name, value in filters.items():
        if name in _DATE_RANGES:
            start, end = date_range(name, value, run)
            for suffix, bound in (("gte", start), ("lte", end)):
                if bound is not None:
                    parameter = f"{_DATE_RANGES[name]}_{suffix}"
                    query[parameter] = bound.isoformat()
                    origin[parameter] = f"/filters/{name}/{'start' if suffix == 'gte' else 'end'}"
        elif name in _VALUES:
            query.setlist(_VALUES[name], _values(name, value))
            origin[_VALUES[name]] = f"/filters/{name}"
        elif name in _TEXT:
            if not isinstance(value, str):
                raise ParamsError(f"/filters/{name}", "Must be a string.")
            query[_TEXT[name]] = value
            origin[_TEXT[name]] = f"/filters/{name}"
        elif name in _FLAGS:
            if not isinstance(value, bool):
                raise ParamsError(f"/filters/{name}", "Must be true or false.")
            query[_FLAGS[name]] = "true" if value else "false"
            origin[_FLAGS[name]] = f"/filters/{name}"
        elif name == "metadata":
            pairs = value if isinstance(value, list) else [value]
            if not pairs or not all(isinstance(pair, dict) for pair in pairs):
                raise ParamsError("/filters/metadata", "Must be a list of objects of string values.")
            query.setlist("metadata", [json.dumps(pair) for pair in pairs])
            origin["metadata"] = "/filters/metadata"
    return query, origin


def _filterset(filters: Mapping[str, Any], run: Run) -> TransactionFilter:
    query, origin = _query(filters, run)
    rows = transaction_list(merchant_account=run.merchant_account)
    return checked_filterset(TransactionFilter(data=query, queryset=rows), origin)


class TransactionsSource:
    name = "transactions"
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
        parts = {keys[0]: PARTS[keys[0]] for keys in (FIELDS[name] for name in fields)}
        columns = dict.fromkeys(column for part in parts.values() for column in part.columns)
        # Only the columns the parts read, in one statement: the list's prefetches render what no field reads.
        queryset = (
            _filterset(filters, run).qs.prefetch_related(None).order_by(*order, "-created_at", "-id").values(*columns)
        )
        renders = [part.render for part in parts.values()]
        # Each field: which part it is in, and its path within the part (None: the part itself).
        position = {key: index for index, key in enumerate(parts)}
        plan = [
            (position[keys[0]], path(*keys[1:]) if keys[1:] else None) for keys in (FIELDS[name] for name in fields)
        ]
        row: Row
        for row in queryset.iterator(chunk_size=BATCH_SIZE):
            rendered = [render(row) for render in renders]
            yield [cell(rendered[index] if within is None else within(rendered[index])) for index, within in plan]


register(TransactionsSource())
