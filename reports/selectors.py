"""Reads of reports and executions, always scoped to one merchant account."""

from __future__ import annotations

import uuid

from django.db.models import OuterRef, QuerySet, Subquery

from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import NotFound
from reports.models import Report, ReportExecution


def _as_uuid(value: uuid.UUID | str) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def report_list(*, merchant_account: MerchantAccount) -> QuerySet[Report]:
    """The account's reports; pagination orders them."""
    return account_rows(Report, merchant_account)


def report_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> Report:
    """One report; another account's is not found, like a missing one."""
    pk = _as_uuid(id)
    report = report_list(merchant_account=merchant_account).filter(pk=pk).first() if pk else None
    if report is None:
        raise NotFound("The report could not be found.")
    return report


def report_latest_executions(reports: list[Report]) -> dict[uuid.UUID, ReportExecution]:
    """Each report's newest execution, in one query whatever the page's size."""
    if not reports:
        return {}
    newest = ReportExecution.objects.filter(report=OuterRef("pk")).order_by("-created_at", "-id").values("id")[:1]
    latest = (
        Report.objects.filter(pk__in=[report.pk for report in reports]).values("pk").annotate(latest=Subquery(newest))
    )
    executions = ReportExecution.objects.filter(pk__in=latest.values("latest"))
    return {execution.report_id: execution for execution in executions}


def report_execution_list(*, merchant_account: MerchantAccount) -> QuerySet[ReportExecution]:
    """The account's executions of every report; pagination orders them."""
    return ReportExecution.objects.filter(report__merchant_account=merchant_account).select_related("report")


def report_execution_get(
    *, merchant_account: MerchantAccount, id: uuid.UUID | str, report: Report | None = None
) -> ReportExecution:
    """One execution of the account (of `report`, when given); any other is not found."""
    pk = _as_uuid(id)
    executions = report_execution_list(merchant_account=merchant_account)
    if report is not None:
        executions = executions.filter(report=report)
    execution = executions.filter(pk=pk).first() if pk else None
    if execution is None:
        raise NotFound("The report execution could not be found.")
    return execution
