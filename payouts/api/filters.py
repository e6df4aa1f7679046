"""The filters of `GET /payouts`, also what a payouts report's filters run through (reports/sources/payouts.py)."""

import django_filters

from payments.rest.filters import OffsetDateTimeFilter
from payouts.models import PayoutStatus


class PayoutFilter(django_filters.FilterSet):
    """Upstream's filters of `GET /payouts`; repeated statuses (`status=a&status=b`) match any of them."""

    created_at_gte = OffsetDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_at_lte = OffsetDateTimeFilter(field_name="created_at", lookup_expr="lte")
    updated_at_gte = OffsetDateTimeFilter(field_name="updated_at", lookup_expr="gte")
    updated_at_lte = OffsetDateTimeFilter(field_name="updated_at", lookup_expr="lte")
    external_identifier = django_filters.CharFilter(field_name="external_identifier", max_length=200)
    payment_service_payout_id = django_filters.CharFilter(field_name="payment_service_payout_id", max_length=200)
    status = django_filters.MultipleChoiceFilter(field_name="status", choices=PayoutStatus.choices, distinct=False)
