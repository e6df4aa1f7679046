"""Query-string filters of `GET /payment-links`, as upstream names them."""

from __future__ import annotations

import django_filters
from django import forms
from drf_spectacular.utils import extend_schema_field

from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.selectors import payment_links_buyer_search, payment_links_with_status
from payments.rest.filters import OffsetDateTimeFilter

# Upstream bounds the amount filters to a 32-bit integer.
MAX_FILTER_AMOUNT = 2_147_483_647


class _IntegerFilter(django_filters.NumberFilter):
    """A whole number (a NumberFilter would take 12.5)."""

    field_class = forms.IntegerField


class _BuyerSearchField(forms.MultipleChoiceField):
    """Free text, repeatable: any value of 1..320 characters."""

    def valid_value(self, value: object) -> bool:
        return 1 <= len(str(value)) <= 320


class _CurrencyField(forms.MultipleChoiceField):
    def valid_value(self, value: object) -> bool:
        text = str(value)
        return len(text) == 3 and text.isascii() and text.isalpha() and text.isupper()


@extend_schema_field({"type": "array", "items": {"type": "string", "pattern": "^[A-Z]{3}$"}})
class _CurrencyFilter(django_filters.MultipleChoiceFilter):
    field_class = _CurrencyField


@extend_schema_field({"type": "array", "items": {"type": "string"}})
class _BuyerSearchFilter(django_filters.MultipleChoiceFilter):
    field_class = _BuyerSearchField


class PaymentLinkFilter(django_filters.FilterSet):
    """Every filter of upstream's list narrows it; repeated values (`status=a&status=b`) match any of them."""

    created_at_gte = OffsetDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_at_lte = OffsetDateTimeFilter(field_name="created_at", lookup_expr="lte")
    updated_at_gte = OffsetDateTimeFilter(field_name="updated_at", lookup_expr="gte")
    updated_at_lte = OffsetDateTimeFilter(field_name="updated_at", lookup_expr="lte")
    currency = _CurrencyFilter(field_name="currency", distinct=False)
    amount_eq = _IntegerFilter(field_name="amount", lookup_expr="exact", min_value=0, max_value=MAX_FILTER_AMOUNT)
    amount_gte = _IntegerFilter(field_name="amount", lookup_expr="gte", min_value=0, max_value=MAX_FILTER_AMOUNT)
    amount_lte = _IntegerFilter(field_name="amount", lookup_expr="lte", min_value=0, max_value=MAX_FILTER_AMOUNT)
    status = django_filters.MultipleChoiceFilter(
        method="filter_status", choices=PaymentLinkStatus.choices, distinct=False
    )
    buyer_search = _BuyerSearchFilter(method="filter_buyer_search", distinct=False)

    class Meta:
        model = PaymentLink
        fields: list[str] = []

    def filter_status(self, queryset, name, value):
        return payment_links_with_status(queryset, value) if value else queryset

    def filter_buyer_search(self, queryset, name, value):
        return payment_links_buyer_search(queryset, value) if value else queryset
