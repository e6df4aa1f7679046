"""HTTP for reports and their executions: validate, call one service or selector, render.

The file itself is downloaded from the signed URL `POST .../url` answers (`ReportDownloadView`): the URL is the
credential, so that view takes no bearer token, and it answers only until the URL expires.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import FileResponse
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.errors import Forbidden, NotFound
from payments.partial import UNCHANGED
from payments.rest.fields import validated
from payments.rest.permissions import request_merchant_account, request_principal
from reports.api.filters import ReportExecutionFilter, ReportFilter
from reports.api.serializers import (
    ReportCreateInput,
    ReportExecutionOutput,
    ReportExecutionUrlInput,
    ReportExecutionUrlOutput,
    ReportOutput,
    ReportUpdateInput,
)
from reports.models import CreatorType, ExecutionStatus, FileFormat, Report, ReportExecution
from reports.selectors import (
    report_execution_get,
    report_execution_list,
    report_get,
    report_latest_executions,
    report_list,
)
from reports.services.files import (
    CONTENT_TYPES,
    DownloadRefused,
    download_file_name,
    download_token,
    download_token_read,
    report_storage,
)
from reports.services.reports import Creator, report_create, report_update


def _page_context(reports: list[Report]) -> dict[str, Any]:
    return {"latest": report_latest_executions(reports)}


class ReportViewSet(
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[Report],
):
    """Reports: a model's rows (transactions; settlements when they are recorded) exported as a file, once or on a
    schedule in the report's timezone.

    list:
        List reports
        The merchant account's reports, newest first, a page at a time; filter by `schedule`, `schedule_enabled` or
        a part of the `name`. Needs the `reports.read` scope.

    retrieve:
        Get a report
        One report with its latest execution. A report of another merchant account is a 404.
    """

    scope_resource = "reports"
    queryset = Report.objects.none()  # names the model for the schema; requests use get_queryset()
    serializer_class = ReportOutput
    filterset_class = ReportFilter
    lookup_url_kwarg = "report_id"
    http_method_names = ["get", "post", "put"]

    def get_queryset(self) -> QuerySet[Report]:
        return report_list(merchant_account=request_merchant_account(self.request))

    def get_object(self) -> Report:
        return report_get(merchant_account=request_merchant_account(self.request), id=self.kwargs["report_id"])

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset())) or []
        return self.get_paginated_response(ReportOutput(page, many=True, context=_page_context(page)).data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        report = self.get_object()
        return Response(ReportOutput(report, context=_page_context([report])).data)

    @extend_schema(request=ReportCreateInput, responses={201: ReportOutput})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Create a report

        Saves what to export (`spec.model` with `params.fields` and `params.filters`, each checked against what
        the model offers) and when (`schedule` in `schedule_timezone`). An enabled `once` report runs now; a
        daily, weekly or monthly one at the end of each day, week or month in its timezone. An unknown model,
        field, filter, schedule or timezone is a 400 naming it. Needs the `reports.write` scope.
        """
        data = validated(ReportCreateInput(data=request.data))
        principal = request_principal(request)
        report = report_create(
            merchant_account=request_merchant_account(request),
            name=data["name"],
            description=data.get("description"),
            schedule=data["schedule"],
            schedule_enabled=data["schedule_enabled"],
            schedule_timezone=data["schedule_timezone"],
            model=data["spec"]["model"],
            params=data["spec"]["params"],
            file_format=data["file_format"],
            creator=Creator(type=CreatorType.PRIVATE_KEY, id=principal.api_key_id, display_name=principal.kid),
        )
        return Response(ReportOutput(report, context=_page_context([report])).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=ReportUpdateInput, responses={200: ReportOutput})
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Update a report

        Renames it, changes its description, or switches its schedule on or off (switched on, it next runs at the
        end of the current period). A field left out or null stays as it is. Needs the `reports.write` scope.
        """
        report = self.get_object()
        data = validated(ReportUpdateInput(data=request.data))
        report = report_update(
            report=report,
            name=data["name"] if data.get("name") is not None else UNCHANGED,
            description=data["description"] if data.get("description") is not None else UNCHANGED,
            schedule_enabled=data["schedule_enabled"] if data.get("schedule_enabled") is not None else UNCHANGED,
        )
        return Response(ReportOutput(report, context=_page_context([report])).data)


class ReportExecutionViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[ReportExecution]
):
    """Report executions: each run of a report, its state and its file.

    list:
        List report executions
        Every execution of the merchant account's reports, newest first, a page at a time; filter by
        `report_name`, `status`, `creator_id` or creation time. Needs the `reports.read` scope.

    retrieve:
        Get a report execution
        One execution with its report. An execution of another merchant account is a 404.
    """

    scope_resource = "reports"
    queryset = ReportExecution.objects.none()
    serializer_class = ReportExecutionOutput
    filterset_class = ReportExecutionFilter
    lookup_url_kwarg = "report_execution_id"
    http_method_names = ["get"]

    def get_queryset(self) -> QuerySet[ReportExecution]:
        return report_execution_list(merchant_account=request_merchant_account(self.request))

    def get_object(self) -> ReportExecution:
        return report_execution_get(
            merchant_account=request_merchant_account(self.request), id=self.kwargs["report_execution_id"]
        )


class ReportExecutionsOfReportViewSet(mixins.ListModelMixin, viewsets.GenericViewSet[ReportExecution]):
    """The executions of one report.

    list:
        List a report's executions
        The report's executions, newest first, a page at a time. A report of another merchant account is a 404.
        Needs the `reports.read` scope.
    """

    scope_resource = "reports"
    queryset = ReportExecution.objects.none()
    serializer_class = ReportExecutionOutput
    filterset_class = None
    http_method_names = ["get", "post"]
    # Asking for a download URL reads the report; upstream asks `reports.read` for it.
    action_scopes = {"url": ("reports.read",)}

    def _report(self) -> Report:
        return report_get(merchant_account=request_merchant_account(self.request), id=self.kwargs["report_id"])

    def get_queryset(self) -> QuerySet[ReportExecution]:
        return report_execution_list(merchant_account=request_merchant_account(self.request)).filter(
            report=self._report()
        )

    @extend_schema(request=ReportExecutionUrlInput, responses={200: ReportExecutionUrlOutput})
    def url(self, request: Request, report_id: str, report_execution_id: str) -> Response:
        """Create a download URL for a report execution

        A signed URL to the execution's file, valid for `expires_in` minutes (1 to 10080, default 5); anyone
        holding it may download the file until then, and nobody after. The execution must have succeeded and
        its file must still be kept (docs/reports.md: retention). Needs the `reports.read` scope.

        404: The report or execution does not exist (or belongs to another merchant account).
        409: The execution has not succeeded, or its file was deleted after the retention.
        """
        execution = report_execution_get(
            merchant_account=request_merchant_account(request), id=report_execution_id, report=self._report()
        )
        data = validated(ReportExecutionUrlInput(data=request.data if request.data is not None else {}))
        if execution.status != ExecutionStatus.SUCCEEDED:
            raise ExecutionNotReady(f"The report execution has no file: it is {execution.status}.")
        if execution.file_deleted_at is not None:
            raise ExecutionNotReady("The report execution's file was deleted after the retention period.")
        expires_in = timedelta(minutes=data["expires_in"])
        token = download_token(execution=execution, expires_in=expires_in)
        url = _absolute(request, reverse("report-download", kwargs={"token": token}))
        return Response({"url": url, "expires_at": (timezone.now() + expires_in).isoformat(timespec="microseconds")})


class ExecutionNotReady(NotFound):
    status = 409


def _absolute(request: Request, path: str) -> str:
    base = settings.PUBLIC_BASE_URL.rstrip("/")
    return f"{base}{path}" if base else request.build_absolute_uri(path)


class ReportDownloadView(APIView):
    """The file of a report execution, from the signed URL: the token in the path is the only credential."""

    authentication_classes: list[type] = []
    permission_classes: list[type] = []
    schema = None  # not an upstream operation: the URL is only ever handed out by `POST .../url`

    def get(self, request: Request, token: str) -> FileResponse:
        try:
            execution_id = download_token_read(token)
        except DownloadRefused as exc:
            raise Forbidden(exc.message, pointer="/token", location="path") from None
        execution = ReportExecution.objects.filter(pk=execution_id, status=ExecutionStatus.SUCCEEDED).first()
        if execution is None or execution.file_deleted_at is not None or not execution.file_name:
            raise NotFound("The report file is no longer kept.")
        handle = report_storage().open(execution.file_name, "rb")
        return FileResponse(
            handle,
            as_attachment=True,
            filename=download_file_name(execution),
            content_type=CONTENT_TYPES[FileFormat(execution.file_format)],
        )
