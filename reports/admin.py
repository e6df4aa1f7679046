"""The support desk's reports: every account's reports and executions, read-only; staff with the run permission
(the Payments operator role) run a report now (a logged POST action) and download an execution's file."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from payments.staff.columns import held_by
from payments.staff.mixins import ReadOnlyAdminMixin
from reports.models import ExecutionStatus, FileFormat, Report, ReportExecution
from reports.services.files import CONTENT_TYPES, download_file_name, report_storage
from reports.services.reports import report_run_now

RUN_PERMISSION = "reports.run_report"


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
