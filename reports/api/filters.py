"""Query-string filters of the report and execution lists, as upstream names them."""

from __future__ import annotations

import uuid
from typing import Any

import django_filters
from django import forms

from payments.rest.filters import OffsetDateTimeFilter, TrueFalseFilter
from reports.models import ExecutionStatus, Report, ReportExecution, ReportSchedule


class _UUIDsField(forms.MultipleChoiceField):
    """A repeatable UUID parameter (`creator_id=a&creator_id=b`)."""

    def valid_value(self, value: object) -> bool:
        try:
            uuid.UUID(str(value))
        except ValueError:
            return False
        return True


class UUIDsFilter(django_filters.MultipleChoiceFilter):
    field_class = _UUIDsField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("distinct", False)
        super().__init__(*args, **kwargs)


class ReportFilter(django_filters.FilterSet):
    schedule = django_filters.MultipleChoiceFilter(choices=ReportSchedule.choices, distinct=False)
    schedule_enabled = TrueFalseFilter(field_name="schedule_enabled")
    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains", max_length=100)

    class Meta:
        model = Report
        fields: list[str] = []


class ReportExecutionFilter(django_filters.FilterSet):
    report_name = django_filters.CharFilter(field_name="report__name", lookup_expr="icontains", max_length=100)
    created_at_gte = OffsetDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_at_lte = OffsetDateTimeFilter(field_name="created_at", lookup_expr="lte")
    status = django_filters.MultipleChoiceFilter(choices=ExecutionStatus.choices, distinct=False)
    creator_id = UUIDsFilter(field_name="report__creator_id")

    class Meta:
        model = ReportExecution
        fields: list[str] = []
