"""The `transactions` report model: the rows `GET /transactions` answers for the same filters, in its order.

The filters are upstream's report filters turned into the list's own query parameters and run through the list's
own FilterSet, and each row is the transaction as the API renders it, so a report and the API never disagree about
which transactions match or what a field holds (docs/reports.md lists both).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from django.db.models.expressions import OrderBy
from django.http import QueryDict

from reports.sources import ParamsError, Run, register
from reports.sources.dates import date_range
from reports.sources.rendered import Rendered, cell, path
from transactions.api.filters import TransactionFilter
from transactions.api.serializers.outputs import TransactionOutput
from transactions.models import Transaction
from transactions.selectors import transaction_list

# Rows read from the database at a time: memory stays bounded whatever the report's size.
BATCH_SIZE = 2000


def _billing(*keys: str) -> Callable[[Rendered], Any]:
    return path("buyer", "billing_details", *keys)


# Upstream's report fields this server can fill, each read from the transaction as the API renders it.
FIELDS: dict[str, Callable[[Rendered], Any]] = {
    "id": path("id"),
    "external_identifier": path("external_identifier"),
    "status": path("status"),
    "created_at": path("created_at"),
    "updated_at": path("updated_at"),
    "authorized_at": path("authorized_at"),
    "captured_at": path("captured_at"),
    "voided_at": path("voided_at"),
    "amount": path("amount"),
    "currency": path("currency"),
    "authorized_amount": path("authorized_amount"),
    "captured_amount": path("captured_amount"),
    "refunded_amount": path("refunded_amount"),
    "settled": path("settled"),
    "settled_currency": path("settled_currency"),
    "settled_amount": path("settled_amount"),
    "method": path("method"),
    "scheme": path("payment_method", "scheme"),
    "payment_service_transaction_id": path("payment_service_transaction_id"),
    "payment_service_id": path("payment_service", "id"),
    "payment_service_definition_id": path("payment_service", "payment_service_definition_id"),
    "payment_service_display_name": path("payment_service", "display_name"),
    "auth_response_code": path("auth_response_code"),
    "raw_response_code": path("raw_response_code"),
    "raw_response_description": path("raw_response_description"),
    "metadata": path("metadata"),
    "is_subsequent_payment": path("is_subsequent_payment"),
    "merchant_initiated": path("merchant_initiated"),
    "payment_source": path("payment_source"),
    "intent_outcome": path("intent_outcome"),
    "three_d_secure_status": path("three_d_secure", "status"),
    "three_d_secure_eci": path("three_d_secure", "response_data", "eci"),
    "three_d_secure_auth_resp": path("three_d_secure", "response_data", "authentication_response"),
    "three_d_secure_method": path("three_d_secure", "method"),
    "buyer_external_identifier": path("buyer", "external_identifier"),
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
    "payment_link_id": path("payment_link_id"),
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
    filterset = TransactionFilter(data=query, queryset=transaction_list(merchant_account=run.merchant_account))
    if not filterset.is_valid():
        parameter, errors = next(iter(filterset.errors.items()))
        raise ParamsError(origin.get(parameter, "/filters"), " ".join(str(error) for error in errors))
    return filterset


def _rendered(output: TransactionOutput, transaction: Transaction) -> Rendered:
    """The transaction as the API renders it, and the payment link it paid (which the API keeps to its filter)."""
    link = transaction.payment_link_id
    return {**output.to_representation(transaction), "payment_link_id": str(link) if link else None}


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
        queryset = _filterset(filters, run).qs.order_by(*order, "-created_at", "-id")
        extract = [FIELDS[name] for name in fields]
        output = TransactionOutput()
        transaction: Transaction
        for transaction in queryset.iterator(chunk_size=BATCH_SIZE):
            rendered = _rendered(output, transaction)
            yield [cell(value(rendered)) for value in extract]


register(TransactionsSource())
