"""Query-string filters of `GET /transactions`, as upstream names them."""

from __future__ import annotations

import re

import django_filters
from django import forms
from django.core.validators import RegexValidator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from payments.choices import PaymentSource
from payments.rest.filters import OffsetDateTimeFilter, TrueFalseFilter, always, matches_nothing
from payments.rest.parsers import UnacceptableJson, json_loads_checked
from payments.rest.permissions import request_merchant_account
from payments.rest.routers import UUID_PATTERN
from transactions.disputes import disputed_filter
from transactions.models import Transaction, TransactionStatus
from transactions.selectors import (
    transaction_buyer_search,
    transaction_metadata_contains,
    transaction_search,
    transaction_with_reconciliation_id,
    transaction_with_redemptions,
    transaction_with_refunds,
    transaction_without_redemptions,
)

# Upstream bounds the amount filters to a 32-bit integer.
MAX_FILTER_AMOUNT = 2_147_483_647


class _ValuesField(forms.MultipleChoiceField):
    """A repeatable free-text parameter whose every value must match `pattern`."""

    def __init__(self, *args, pattern: str = r".{1,64}", **kwargs) -> None:
        self.pattern = re.compile(pattern)
        super().__init__(*args, **kwargs)

    def valid_value(self, value) -> bool:
        return bool(self.pattern.fullmatch(str(value)))


@extend_schema_field(OpenApiTypes.STR)
class ValuesFilter(django_filters.MultipleChoiceFilter):
    """`name=a&name=b`: rows matching any of the values exactly."""

    field_class = _ValuesField

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("distinct", False)  # plain columns: no join can repeat a row
        super().__init__(*args, **kwargs)


class IntegerFilter(django_filters.NumberFilter):
    """A whole number (DRF-style NumberFilter would take 12.5)."""

    field_class = forms.IntegerField


class IPAddressFilter(django_filters.CharFilter):
    """An IPv4 or IPv6 address, normalized as the column stores it (`::FFFF:A` and `::ffff:a` are one address)."""

    field_class = forms.GenericIPAddressField


class MetadataFilterField(forms.Field):
    """`metadata={"key":"value"}` (repeatable): JSON objects of string pairs, merged into one."""

    def to_python(self, values):
        merged: dict[str, str] = {}
        for raw in values or []:
            try:
                value = json_loads_checked(raw)
            except UnacceptableJson as exc:
                problems = "; ".join(f"{d['pointer']}: {d['message']}" for d in exc.details)
                raise forms.ValidationError(f"Must be a JSON object of string values ({problems})") from exc
            except ValueError as exc:
                raise forms.ValidationError("Must be a JSON object of string values.") from exc
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise forms.ValidationError("Must be a JSON object of string values.")
            merged.update(value)
        return merged


@extend_schema_field({"type": "string", "description": 'A JSON object of string values, e.g. {"order_id":"12345"}.'})
class MetadataFilter(django_filters.Filter):
    field_class = MetadataFilterField

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("widget", forms.MultipleHiddenInput)
        super().__init__(*args, **kwargs)

    def filter(self, queryset, value):
        return transaction_metadata_contains(queryset, value) if value else queryset


class TransactionFilter(django_filters.FilterSet):
    """Every filter of upstream's transaction list narrows it; none is ignored (a parameter not declared here is a
    400, `payments.rest.query`). Repeated values (`status=a&status=b`) match any of them.

    Filters over a link or a state this server never creates (disputes, payment
    services, reauthorizations, anti-fraud reviews, stored payment methods) validate their value and answer what is
    true: no transaction has them.
    """

    id = django_filters.UUIDFilter(field_name="id")
    reconciliation_id = django_filters.CharFilter(method="filter_reconciliation_id")
    status = django_filters.MultipleChoiceFilter(field_name="status", choices=TransactionStatus.choices, distinct=False)
    created_at_gte = OffsetDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_at_lte = OffsetDateTimeFilter(field_name="created_at", lookup_expr="lte")
    updated_at_gte = OffsetDateTimeFilter(field_name="updated_at", lookup_expr="gte")
    updated_at_lte = OffsetDateTimeFilter(method="filter_updated_at_lte")
    amount_eq = IntegerFilter(field_name="amount", lookup_expr="exact", min_value=0, max_value=MAX_FILTER_AMOUNT)
    amount_gte = IntegerFilter(field_name="amount", lookup_expr="gte", min_value=0, max_value=MAX_FILTER_AMOUNT)
    amount_lte = IntegerFilter(field_name="amount", lookup_expr="lte", min_value=0, max_value=MAX_FILTER_AMOUNT)
    currency = ValuesFilter(field_name="currency", pattern=r"[A-Z]{3}")
    country = ValuesFilter(field_name="country", pattern=r"[A-Z]{2}")
    external_identifier = django_filters.CharFilter(field_name="external_identifier", max_length=200)
    metadata = MetadataFilter()
    search = django_filters.CharFilter(method="filter_search", max_length=200)

    # The buyer
    buyer_id = django_filters.UUIDFilter(field_name="buyer_id")
    buyer_external_identifier = django_filters.CharFilter(field_name="buyer_external_identifier", max_length=200)
    buyer_email_address = django_filters.CharFilter(method="filter_buyer_email_address", max_length=320)
    buyer_search = ValuesFilter(method="filter_buyer_search", pattern=r".{1,320}")
    ip_address = IPAddressFilter(field_name="ip_address")

    # How it was paid
    method = ValuesFilter(field_name="method")
    checkout_session_id = django_filters.UUIDFilter(field_name="checkout_session_id")
    payment_source = django_filters.MultipleChoiceFilter(
        field_name="payment_source", choices=PaymentSource.choices, distinct=False
    )
    merchant_initiated = TrueFalseFilter(field_name="merchant_initiated")
    is_subsequent_payment = TrueFalseFilter(field_name="is_subsequent_payment")
    used_3ds = TrueFalseFilter(field_name="three_d_secure", lookup_expr="isnull", exclude=True)
    payment_method_label = django_filters.CharFilter(field_name="card_last4", max_length=4)
    payment_method_bin = django_filters.CharFilter(field_name="card_bin", max_length=8)
    payment_method_fingerprint = django_filters.CharFilter(field_name="card_fingerprint", max_length=64)
    payment_method_scheme = ValuesFilter(field_name="card_scheme")
    # No BIN table: no card's country is known (`payment_method.country` is null), so none matches.
    payment_method_country = django_filters.CharFilter(
        method=matches_nothing, validators=[RegexValidator(r"^[A-Z]{2}$", "Must be an ISO 3166-1 alpha-2 code.")]
    )
    payment_method_id = django_filters.UUIDFilter(field_name="payment_method_id")

    # The processor's answer
    error_code = ValuesFilter(field_name="error_code")
    payment_service_transaction_id = django_filters.CharFilter(
        field_name="payment_service_transaction_id", max_length=255
    )
    payment_service_id = ValuesFilter(field_name="payment_service_id", pattern=UUID_PATTERN)

    # Gift cards
    has_gift_card_redemptions = TrueFalseFilter(method="filter_has_gift_card_redemptions")
    gift_card_id = django_filters.UUIDFilter(method="filter_gift_card_id")
    gift_card_last4 = django_filters.CharFilter(
        method="filter_gift_card_last4", validators=[RegexValidator(r"^[0-9]{4}$", "Must be 4 digits.")]
    )

    # What happened afterwards
    has_refunds = TrueFalseFilter(method="filter_has_refunds")
    disputed = TrueFalseFilter(method="filter_disputed")
    has_settlements = TrueFalseFilter(method="filter_has_settlements")
    pending_review = TrueFalseFilter(method=always(False))
    payment_link_id = django_filters.UUIDFilter(field_name="payment_link_id")
    reauthorized_from_transaction_id = django_filters.UUIDFilter(method=matches_nothing)

    class Meta:
        model = Transaction
        fields: list[str] = []

    def filter_has_refunds(self, queryset, name, value):
        return transaction_with_refunds(queryset, value)

    def filter_disputed(self, queryset, name, value):
        return queryset.filter(disputed_filter(value))

    def filter_has_settlements(self, queryset, name, value):
        # Settled: the processor's settlement records name the transaction (docs/reconciliation.md).
        return queryset.filter(settled_at__isnull=not value)

    def filter_updated_at_lte(self, queryset, name, value):
        # A transaction is created before its last change, so `created_at <= value` holds too. Said outright, it
        # lets the page walk start at `value` instead of at the newest row: an old window no longer reads every
        # newer transaction first (4.4 s for a day 85 days back at a million rows, docs/performance.md).
        return queryset.filter(updated_at__lte=value, created_at__lte=value)

    def filter_search(self, queryset, name, value):
        return transaction_search(queryset, value, merchant_account=request_merchant_account(self.request))

    def filter_buyer_email_address(self, queryset, name, value):
        return queryset.filter(buyer_email_address=value.lower())

    def filter_buyer_search(self, queryset, name, value):
        return transaction_buyer_search(queryset, value)

    def filter_reconciliation_id(self, queryset, name, value):
        return transaction_with_reconciliation_id(queryset, value)

    def filter_has_gift_card_redemptions(self, queryset, name, value):
        return transaction_with_redemptions(queryset) if value else transaction_without_redemptions(queryset)

    def filter_gift_card_id(self, queryset, name, value):
        return transaction_with_redemptions(queryset, gift_card_id=value)

    def filter_gift_card_last4(self, queryset, name, value):
        return transaction_with_redemptions(queryset, last4=value)
