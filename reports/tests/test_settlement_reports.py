"""The `detailed_settlement` and `accounts_receivables` models: the ledger's lines as ingested, an unmatched one too."""

import csv
import io
import json
from datetime import date

import pytest
from django.utils import timezone

from paymentservices.processors.sandbox import read_sandbox_report
from payouts.tests.factories import PayoutFactory
from reports.models import ReportExecution
from reports.services.executions import report_execution_run
from reports.services.files import report_storage
from settlements.models import LedgerEntry
from settlements.services import SettlementFile, settlement_file_ingest
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

DAY = date(2026, 3, 2)


def _ingest(merchant_account, lines):
    content = json.dumps({"day": DAY.isoformat(), "lines": lines}).encode()
    file = SettlementFile(
        source="mock-card", report_name=DAY.isoformat(), name=f"s-{DAY}.json", content=content, read=read_sandbox_report
    )
    settlement_file_ingest(merchant_account=merchant_account, payment_service=None, file=file)


def _line(reference, amount=10000):
    return {
        "operation": "capture",
        "reference": reference,
        "processor_reference": f"sandbox-capture-{reference}",
        "amount": amount,
        "currency": "EUR",
    }


def _rows(client, model, filters):
    report = client.post(
        "/reports",
        {
            "name": model,
            "schedule": "once",
            "schedule_enabled": True,
            "spec": {"model": model, "params": {"filters": filters}},
        },
        format="json",
    )
    assert report.status_code == 201, report.content
    execution_id = report.json()["latest_execution"]["id"]
    assert report_execution_run(execution_id=execution_id)
    execution = ReportExecution.objects.get(pk=execution_id)
    with report_storage().open(execution.file_name, "rb") as handle:
        return list(csv.DictReader(io.StringIO(handle.read().decode())))


@pytest.fixture
def ledger(merchant_account):
    captured = TransactionFactory(merchant_account=merchant_account, captured=True, amount=10000, currency="EUR")
    _ingest(merchant_account, [_line(str(captured.pk)), _line("not-one-of-ours", amount=500)])
    assert LedgerEntry.objects.count() == 2
    return captured


def test_a_detailed_settlement_report_lists_every_line_with_its_fees(api_client, merchant_account, ledger):
    rows = _rows(api_client(scopes=["reports.write"]), "detailed_settlement", {"posted_at": {"start": "2026-01-01"}})

    entries = {entry.amount: entry for entry in LedgerEntry.objects.all()}
    assert len(rows) == 2
    for row in rows:
        entry = entries[int(row["gross_credit"])]
        assert row["payment_service_transaction_id"] == entry.processor_reference
        assert int(row["gross_credit"]) == entry.amount
        assert int(row["net_credit"]) == entry.net_amount
        assert int(row["commission"]) == entry.commission
        assert row["journal_type"] == "settlement"
    matched = next(row for row in rows if row["transaction_id"])
    assert matched["transaction_id"] == str(ledger.pk)
    unmatched = next(row for row in rows if not row["transaction_id"])
    assert unmatched["gross_credit"] == "500"


def test_accounts_receivables_and_the_date_filter(api_client, merchant_account, ledger):
    client = api_client(scopes=["reports.write"])
    assert len(_rows(client, "accounts_receivables", {"timestamp": {"start": "2026-01-01T00:00:00Z"}})) == 2
    assert _rows(client, "accounts_receivables", {"timestamp": {"end": "2026-01-01T00:00:00Z"}}) == []


@pytest.mark.parametrize(
    ("model", "params", "pointer"),
    [
        ("detailed_settlement", {"fields": ["batch"]}, "/spec/params/fields"),
        ("detailed_settlement", {"filters": {"status": ["x"]}}, "/spec/params/filters/status"),
        ("accounts_receivables", {"filters": {"timestamp": {}}}, "/spec/params/filters/timestamp"),
    ],
)
def test_bad_settlement_params_are_400s_naming_them(api_client, merchant_account, model, params, pointer):
    answer = api_client(scopes=["reports.write"]).post(
        "/reports",
        {"name": "x", "schedule": "once", "schedule_enabled": True, "spec": {"model": model, "params": params}},
        format="json",
    )
    assert answer.status_code == 400
    assert answer.json()["details"][0]["pointer"] == pointer


def test_nothing_recorded_yet_is_an_empty_file(merchant_account):
    from reports.tests.factories import ReportFactory

    report = ReportFactory(merchant_account=merchant_account, model="detailed_settlement", params={"filters": {}})
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=timezone.now(), reference_timezone="UTC"
    )
    assert report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    assert execution.row_count == 0


def test_the_detailed_settlement_report_shows_the_payout_as_a_debit(api_client, merchant_account):
    payout = PayoutFactory(merchant_account=merchant_account, amount=900)

    [row] = _rows(api_client(scopes=["reports.write"]), "detailed_settlement", {"posted_at": {"start": "2026-01-01"}})

    assert (row["journal_type"], row["gross_debit"], row["net_debit"], row["gross_credit"]) == (
        "card-payout",
        "900",
        "900",
        "",
    )
    assert (row["reconciliation_id"], row["payment_service_id"]) == (str(payout.pk), str(payout.payment_service_id))
