"""The support desk's reports: every account's reports and executions, read-only; staff with the run permission
(the Payments operator role) create a report (through the same service as the API), run one now (a logged POST
action) and download an execution's file."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import FileResponse, Http404, HttpRequest
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html

from payments.staff.columns import held_by
from payments.staff.mixins import ReadOnlyAdminMixin
from reports.models import CreatorType, ExecutionStatus, FileFormat, Report, ReportExecution, ReportSchedule
from reports.schedules import PERIODS
from reports.services.files import CONTENT_TYPES, download_file_name, report_storage
from reports.services.reports import Creator, ReportRefused, report_create, report_run_now, report_spec_check
from reports.sources import SOURCES

RUN_PERMISSION = "reports.run_report"
PERIOD_LABELS = {
    "day": "Today (each run: its day)",
    "week": "This week (each run: its week)",
    "month": "This month (each run: its month)",
}


class ReportCreateForm(forms.ModelForm):
    """A report as an operator asks for it: a model, every column, and a period of the model's own date, checked by
    the service's own rules before it is made (a refusal shows on the form, nothing written)."""

    model = forms.ChoiceField(choices=[], label="Report", help_text="Every column of the report is included.")
    period = forms.ChoiceField(
        choices=[("", "All time"), *((period, PERIOD_LABELS[period]) for period in PERIODS)],
        required=False,
        help_text="Periods are read in the report's timezone; a scheduled report covers the period it ran for.",
    )

    class Meta:
        model = Report
        fields = (
            "merchant_account",
            "name",
            "description",
            "model",
            "period",
            "file_format",
            "schedule",
            "schedule_timezone",
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["model"]).choices = [
            (name, name.replace("_", " ").capitalize()) for name in sorted(SOURCES)
        ]
        self.fields["schedule"].initial = ReportSchedule.ONCE
        self.fields["file_format"].initial = FileFormat.CSV

    def params(self) -> dict[str, Any]:
        data = self.cleaned_data
        period = data.get("period")
        if not period:
            return {"fields": None, "filters": {}}
        date_filter = SOURCES[data["model"]].date_filter
        return {"fields": None, "filters": {date_filter: {"start": f"{period}_start", "end": f"{period}_end"}}}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            report_spec_check(
                merchant_account=data["merchant_account"],
                model=data["model"],
                params=self.params(),
                timezone_name=data["schedule_timezone"],
                now=timezone.now(),
            )
        except ReportRefused as error:
            raise forms.ValidationError(error.message) from None
        return data

    def _post_clean(self) -> None:
        pass  # the service makes the row; the form's instance is never validated nor saved as it stands


@admin.register(Report)
class ReportAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("name", "merchant_account", "model", "schedule", "schedule_enabled", "next_execution_at")
    list_filter = ("model", "schedule", "schedule_enabled")
    search_fields = ("=id", "name", "=merchant_account__id")
    show_full_result_count = False
    fields = (
        "id",
        "merchant_account",
        "name",
        "description",
        "model",
        "params",
        "file_format",
        "schedule",
        "schedule_enabled",
        "schedule_timezone",
        "next_execution_at",
        "creator_type",
        "creator_display_name",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields
    actions = ("run_now",)

    def has_run_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(RUN_PERMISSION)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return self.has_run_permission(request)

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = ReportCreateForm
            kwargs["fields"] = ReportCreateForm.Meta.fields
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ReportCreateForm.Meta.fields if obj is None else self.fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: Report, form: Any, change: bool) -> None:
        data = form.cleaned_data
        report = report_create(
            merchant_account=data["merchant_account"],
            name=data["name"],
            description=data.get("description") or None,
            schedule=data["schedule"],
            schedule_enabled=True,
            schedule_timezone=data["schedule_timezone"],
            model=data["model"],
            params=form.params(),
            file_format=data["file_format"],
            creator=Creator(type=CreatorType.USER, id=None, display_name=request.user.get_username()),
        )
        obj.__dict__.update({key: value for key, value in report.__dict__.items() if not key.startswith("_")})
        obj._state = report._state

    @admin.action(description="Run selected reports now", permissions=["run"])
    def run_now(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        for report in queryset:
            report_run_now(report=report)
            self.log_change(request, report, "Run now.")
        self.message_user(request, f"{queryset.count()} report executions queued.", messages.SUCCESS)


@admin.register(ReportExecution)
class ReportExecutionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "report", "status", "reference_timestamp", "row_count", "finished_at", "download")
    list_filter = ("status",)
    search_fields = ("=id", "=report__id", "report__name")
    list_select_related = ("report",)
    show_full_result_count = False
    fields = (
        "id",
        "report",
        "status",
        "reference_timestamp",
        "reference_timezone",
        "attempt_count",
        "running",
        "row_count",
        "file_size",
        "file_format",
        "failure_reason",
        "finished_at",
        "file_deleted_at",
        "download",
    )
    readonly_fields = fields

    @admin.display(description="Being run by")
    def running(self, execution: ReportExecution) -> str:
        return held_by(execution.leased_by, execution.leased_until)

    @admin.display(description="File")
    def download(self, execution: ReportExecution) -> str:
        if execution.status != ExecutionStatus.SUCCEEDED or execution.file_deleted_at or not execution.file_name:
            return "-"
        url = reverse("admin:reports_reportexecution_download", args=[execution.pk])
        return format_html('<a href="{}">Download {}</a>', url, execution.file_format.upper())

    def get_urls(self) -> list[URLPattern]:
        download = self.admin_site.admin_view(self.download_view)
        return [
            path("<uuid:execution_id>/download/", download, name="reports_reportexecution_download"),
            *super().get_urls(),
        ]

    def download_view(self, request: HttpRequest, execution_id: Any) -> FileResponse:
        if not request.user.has_perm(RUN_PERMISSION):
            raise PermissionDenied
        execution = ReportExecution.objects.select_related("report").filter(pk=execution_id).first()
        if execution is None or execution.file_deleted_at or not execution.file_name:
            raise Http404("No file is kept for this execution.")
        self.log_change(request, execution, "Downloaded the file.")
        return FileResponse(
            report_storage().open(execution.file_name, "rb"),
            as_attachment=True,
            filename=download_file_name(execution),
            content_type=CONTENT_TYPES[FileFormat(execution.file_format)],
        )
