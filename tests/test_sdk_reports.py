"""The official `gr4vy` SDK, unchanged, against a running server: a report created, listed and read, its execution
listed and read, a download URL made, and the file fetched from it."""

import csv
import io
import urllib.request

import pytest
from gr4vy import errors, models

from reports.services.executions import report_execution_run
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_create_list_get_a_report_and_its_executions(sdk, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, captured=True, amount=1234)

    report = sdk.reports.create(
        name="Captures",
        schedule="once",
        schedule_enabled=True,
        schedule_timezone="Europe/London",
        spec={
            "model": "transactions",
            # The sort the SDK's own end-to-end test sends.
            "params": {
                "fields": ["id", "amount"],
                "filters": {"status": ["capture_succeeded"]},
                "sort": [{"field": "created_at", "order": "desc"}],
            },
        },
    )
    assert isinstance(report, models.Report)
    assert (report.schedule, report.schedule_timezone, report.spec.model) == ("once", "Europe/London", "transactions")
    execution_id = report.latest_execution.id
    report_execution_run(execution_id=execution_id)

    assert [item.id for item in sdk.reports.list().result.items] == [report.id]
    assert sdk.reports.get(report_id=report.id).latest_execution.status == "succeeded"
    updated = sdk.reports.put(report_id=report.id, name="Renamed")
    assert updated.name == "Renamed"

    executions = sdk.reports.executions.list(report_id=report.id).result.items
    assert [execution.id for execution in executions] == [execution_id]
    everything = sdk.report_executions.list(status=["succeeded"]).result.items
    assert [(execution.id, execution.report.name) for execution in everything] == [(execution_id, "Renamed")]
    one = sdk.reports.executions.get(report_execution_id=execution_id)
    assert one.context.reference_timezone == "Europe/London"

    url = sdk.reports.executions.url(report_id=report.id, report_execution_id=execution_id, expires_in=5)
    with urllib.request.urlopen(url.url, timeout=10) as answer:  # noqa: S310  (the live test server's own URL)
        rows = list(csv.reader(io.StringIO(answer.read().decode())))
    assert rows == [["id", "amount"], [str(txn.pk), "1234"]]


def test_an_unsupported_model_is_a_typed_400(sdk, merchant_account):
    with pytest.raises(errors.Error400) as raised:
        sdk.reports.create(
            name="x", schedule="once", schedule_enabled=True, spec={"model": "ai_insights", "params": {}}
        )
    assert raised.value.data.details[0].pointer == "/spec/model"
