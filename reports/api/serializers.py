"""Report and execution shapes, field for field as upstream's schemas (`ReportCreate`, `Report`, ...)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments.rest.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    TimestampField,
)
from payments.rest.outputs import ConstantField, OutputSerializer
from reports.models import CreatorType, ExecutionStatus, FileFormat, ReportSchedule

SPEC_MODELS = ("transactions", "transaction_retries", "detailed_settlement", "accounts_receivables", "ai_insights")


class ReportSpecInput(StrictSerializer):
    """Upstream's `ReportSpec`: the model by name (every upstream model; those this server lacks are refused by name
    in the service) and its `params`, checked against the model."""

    model = StrictCharField(max_length=64)
    params = serializers.JSONField()

    def validate_params(self, value: object) -> object:
        if not isinstance(value, dict):
            raise serializers.ValidationError("Must be an object.")
        return value


class ReportCreateInput(StrictSerializer):
    name = StrictCharField(min_length=1, max_length=100)
    description = StrictCharField(min_length=1, max_length=1000, required=False, allow_null=True)
    schedule = serializers.ChoiceField(choices=ReportSchedule.choices)
    schedule_enabled = StrictBooleanField()
    schedule_timezone = StrictCharField(max_length=64, required=False, default="Etc/UTC")
    spec = ReportSpecInput()
    # An extension (docs/api-contracts.md): the file's format; upstream's files are CSV.
    file_format = serializers.ChoiceField(choices=FileFormat.choices, required=False, default=FileFormat.CSV)


class ReportUpdateInput(StrictSerializer):
    name = StrictCharField(min_length=1, max_length=100, required=False, allow_null=True)
    description = StrictCharField(min_length=1, max_length=1000, required=False, allow_null=True)
    schedule_enabled = StrictBooleanField(required=False, allow_null=True)


class ReportExecutionUrlInput(StrictSerializer):
    expires_in = StrictIntegerField(min_value=1, max_value=10080, required=False, default=5)


class ReportExecutionContextOutput(OutputSerializer):
    reference_timestamp = TimestampField()
    reference_timezone = serializers.CharField()


class ReportExecutionSummaryOutput(OutputSerializer):
    """Upstream's `ReportExecutionSummary`."""

    type = ConstantField("report-execution")
    id = serializers.UUIDField()
    created_at = TimestampField()
    updated_at = TimestampField()
    status = serializers.ChoiceField(choices=ExecutionStatus.choices)
    context = ReportExecutionContextOutput(source="*")  # type: ignore[assignment]  # a field named like Field.context


class ReportSummaryOutput(OutputSerializer):
    """Upstream's `ReportSummary`."""

    type = ConstantField("report")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    name = serializers.CharField()
    creator_id = serializers.UUIDField(allow_null=True)
    creator_display_name = serializers.CharField(allow_null=True)
    creator_type = serializers.ChoiceField(choices=CreatorType.choices, allow_null=True)


class ReportExecutionOutput(ReportExecutionSummaryOutput):
    """Upstream's `ReportExecution`: the summary and its report."""

    report = ReportSummaryOutput()


class ReportSpecOutput(OutputSerializer):
    model = serializers.CharField()
    params = serializers.JSONField()


class ReportOutput(ReportSummaryOutput):
    """Upstream's `Report`: the summary and the rest; `latest_execution` comes from the view (one query a page)."""

    created_at = TimestampField()
    updated_at = TimestampField()
    next_execution_at = TimestampField(allow_null=True)
    description = serializers.CharField(allow_null=True)
    schedule = serializers.ChoiceField(choices=ReportSchedule.choices)
    schedule_enabled = serializers.BooleanField()
    schedule_timezone = serializers.CharField()
    spec = serializers.SerializerMethodField()
    latest_execution = serializers.SerializerMethodField()

    def get_spec(self, report: Any) -> dict[str, Any]:
        return {"model": report.model, "params": _params_shown(report.params)}

    def get_latest_execution(self, report: Any) -> dict[str, Any] | None:
        latest = self.context.get("latest", {}).get(report.pk)
        return ReportExecutionSummaryOutput(latest).data if latest is not None else None


def _params_shown(params: dict[str, Any]) -> dict[str, Any]:
    """The params as the client gave them: no `fields` key means every field, no filters none; `sort` when given."""
    shown = {"fields": params.get("fields"), "filters": params.get("filters") or None}
    if params.get("sort"):
        shown["sort"] = params["sort"]
    return shown


class ReportExecutionUrlOutput(OutputSerializer):
    url = serializers.CharField()
    expires_at = TimestampField()
