"""Query-string filters of `GET /transactions`, as upstream names them."""

from __future__ import annotations

import json
import re

import django_filters
from django import forms

from transactions.models import Transaction, TransactionStatus
from transactions.selectors import transaction_metadata_contains, transaction_search, transaction_with_refunds

_BOOLEAN = [("true", "true"), ("false", "false")]


class _ValuesField(forms.MultipleChoiceField):
    """A repeatable free-text parameter whose every value must match `pattern`."""

    def __init__(self, *args, pattern: str = r".{1,64}", **kwargs) -> None:
        self.pattern = re.compile(pattern)
        super().__init__(*args, **kwargs)

    def valid_value(self, value) -> bool:
        return bool(self.pattern.fullmatch(str(value)))


class ValuesFilter(django_filters.MultipleChoiceFilter):
    """`name=a&name=b`: rows matching any of the values exactly."""

    field_class = _ValuesField

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("distinct", False)  # plain columns: no join can repeat a row
        super().__init__(*args, **kwargs)


class IntegerFilter(django_filters.NumberFilter):
    """A whole number (DRF-style NumberFilter would take 12.5)."""

    field_class = forms.IntegerField


class MetadataFilterField(forms.Field):
    """`metadata={"key":"value"}` (repeatable): JSON objects of string pairs, merged into one."""

    def to_python(self, values):
        merged: dict[str, str] = {}
        for raw in values or []:
            try:
                value = json.loads(raw)
            except ValueError as exc:
                raise forms.ValidationError("Must be a JSON object of string values.") from exc
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise forms.ValidationError("Must be a JSON object of string values.")
            merged.update(value)
        return merged


class MetadataFilter(django_filters.Filter):
    field_class = MetadataFilterField

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("widget", forms.MultipleHiddenInput)
        super().__init__(*args, **kwargs)

    def filter(self, queryset, value):
        return transaction_metadata_contains(queryset, value) if value else queryset


class TransactionFilter(django_filters.FilterSet):
    """Every filter narrows the list; repeated `status` / `currency` values match any of them."""

    buyer_id = django_filters.UUIDFilter(field_name="buyer_id")
    buyer_external_identifier = django_filters.CharFilter(field_name="buyer_external_identifier", max_length=200)
    status = django_filters.MultipleChoiceFilter(field_name="status", choices=TransactionStatus.choices, distinct=False)
    created_at_gte = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_at_lte = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lte")
    updated_at_gte = django_filters.IsoDateTimeFilter(field_name="updated_at", lookup_expr="gte")
    updated_at_lte = django_filters.IsoDateTimeFilter(field_name="updated_at", lookup_expr="lte")
    amount_eq = IntegerFilter(field_name="amount", lookup_expr="exact", min_value=0)
    amount_gte = IntegerFilter(field_name="amount", lookup_expr="gte", min_value=0)
    amount_lte = IntegerFilter(field_name="amount", lookup_expr="lte", min_value=0)
    currency = ValuesFilter(field_name="currency", pattern=r"[A-Z]{3}")
    country = ValuesFilter(field_name="country", pattern=r"[A-Z]{2}")
    external_identifier = django_filters.CharFilter(field_name="external_identifier", max_length=200)
    checkout_session_id = django_filters.UUIDFilter(field_name="checkout_session_id")
    id = django_filters.UUIDFilter(field_name="id")
    method = ValuesFilter(field_name="method")
    error_code = ValuesFilter(field_name="error_code")
    payment_method_label = django_filters.CharFilter(field_name="card_last4", max_length=4)
    payment_method_bin = django_filters.CharFilter(field_name="card_bin", max_length=8)
    payment_method_fingerprint = django_filters.CharFilter(field_name="card_fingerprint", max_length=64)
    payment_method_scheme = ValuesFilter(field_name="card_scheme")
    has_refunds = django_filters.ChoiceFilter(choices=_BOOLEAN, method="filter_has_refunds")
    metadata = MetadataFilter()
    search = django_filters.CharFilter(method="filter_search", max_length=200)

    class Meta:
        model = Transaction
        fields: list[str] = []

    def filter_has_refunds(self, queryset, name, value):
        return transaction_with_refunds(queryset, value == "true")

    def filter_search(self, queryset, name, value):
        return transaction_search(queryset, value)
