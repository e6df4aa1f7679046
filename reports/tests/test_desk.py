"""The support desk: operators create a report, run one now and download its file; view-only staff do none of it."""

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.urls import reverse

from payments.staff.roles import PAYMENTS_OPERATOR, SUPPORT
from reports.models import ExecutionStatus, Report, ReportExecution
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


def _new_report(**fields):
    return {
        "merchant_account": "default",
        "name": "Captured today",
        "description": "",
        "model": "transactions",
        "period": "day",
        "file_format": "csv",
        "schedule": "once",
        "schedule_timezone": "Europe/London",
        **fields,
    }


def test_an_operator_creates_a_report_that_runs_through_the_api_s_rules(client, staff_login, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, captured=True)
    user = staff_login(PAYMENTS_OPERATOR)

    assert client.get(reverse("admin:reports_report_add")).status_code == 200
    answer = client.post(reverse("admin:reports_report_add"), _new_report())

    assert answer.status_code == 302, answer.content.decode()
    report = Report.objects.get()
    assert (report.model, report.schedule, report.schedule_timezone) == ("transactions", "once", "Europe/London")
    assert report.params == {"fields": None, "filters": {"created_at": {"start": "day_start", "end": "day_end"}}}
    assert (report.creator_type, report.creator_display_name) == ("user", user.get_username())
    assert LogEntry.objects.get(object_id=str(report.pk)).action_flag == ADDITION
    execution = ReportExecution.objects.get(report=report)  # a `once` report runs at once, as over the API
    report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    assert (execution.status, execution.row_count) == (ExecutionStatus.SUCCEEDED, 1)
    assert str(txn.pk) in b"".join(client.get(_download(execution)).streaming_content).decode()


def test_a_ledger_report_takes_the_period_on_its_own_date(client, staff_login, merchant_account):
    staff_login(PAYMENTS_OPERATOR)

    answer = client.post(reverse("admin:reports_report_add"), _new_report(model="detailed_settlement", period="month"))

    assert answer.status_code == 302
    filters = Report.objects.get().params["filters"]
    assert filters == {"posted_at": {"start": "month_start", "end": "month_end"}}


def test_a_refusal_shows_on_the_form_and_writes_nothing(client, staff_login, merchant_account):
    staff_login(PAYMENTS_OPERATOR)

    answer = client.post(reverse("admin:reports_report_add"), _new_report(schedule_timezone="Mars/Olympus"))

    assert answer.status_code == 200
    assert "Unknown timezone `Mars/Olympus`" in answer.content.decode()
    assert not Report.objects.exists()


def test_view_only_staff_cannot_create_a_report(client, staff_login, merchant_account):
    staff_login(SUPPORT)

    assert client.get(reverse("admin:reports_report_add")).status_code == 403
    assert client.post(reverse("admin:reports_report_add"), _new_report()).status_code == 403
    assert not Report.objects.exists()


def _download(execution):
    return reverse("admin:reports_reportexecution_download", args=[execution.pk])
