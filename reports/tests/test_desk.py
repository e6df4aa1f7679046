"""The support desk: operators run a report now and download its file; view-only staff do neither."""

import pytest
from django.urls import reverse

from payments.staff.roles import PAYMENTS_OPERATOR, SUPPORT
from reports.models import ExecutionStatus, ReportExecution
from reports.services.executions import report_execution_run
from reports.tests.factories import ReportFactory
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db


def _run_now(client, report):
    return client.post(
        reverse("admin:reports_report_changelist"),
        {"action": "run_now", "_selected_action": [str(report.pk)]},
    )


def test_an_operator_runs_a_report_and_downloads_it(client, staff_login, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, captured=True)
    report = ReportFactory(merchant_account=merchant_account, params={"fields": ["id", "status"], "filters": {}})
    staff_login(PAYMENTS_OPERATOR)

    assert _run_now(client, report).status_code == 302
    execution = ReportExecution.objects.get(report=report)
    report_execution_run(execution_id=str(execution.pk))

    page = client.get(reverse("admin:reports_reportexecution_change", args=[execution.pk]))
    assert page.status_code == 200
    download = reverse("admin:reports_reportexecution_download", args=[execution.pk])
    assert download in page.content.decode()
    answer = client.get(download)
    assert answer.status_code == 200
    assert b"".join(answer.streaming_content).decode().splitlines() == ["id,status", f"{txn.pk},capture_succeeded"]


def test_view_only_staff_can_neither_run_nor_download(client, staff_login, merchant_account):
    report = ReportFactory(merchant_account=merchant_account)
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=report.created_at, reference_timezone="UTC"
    )
    report_execution_run(execution_id=str(execution.pk))
    staff_login(SUPPORT)

    _run_now(client, report)
    assert ReportExecution.objects.filter(report=report).count() == 1
    assert ReportExecution.objects.get().status == ExecutionStatus.SUCCEEDED
    answer = client.get(reverse("admin:reports_reportexecution_download", args=[execution.pk]))
    assert answer.status_code == 403
