"""A transactions report holds exactly the rows `GET /transactions` answers for the same filters, in its order, with
the same values."""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from reports.models import ReportExecution
from reports.services.executions import report_execution_run
from reports.services.files import report_storage
from reports.tests.factories import ReportFactory
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

FIELDS = ["id", "status", "amount", "currency", "captured_amount", "method", "scheme", "created_at", "settled"]


def _report_rows(merchant_account, filters, *, fields=FIELDS):
    report = ReportFactory(merchant_account=merchant_account, params={"fields": fields, "filters": filters})
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=timezone.now(), reference_timezone="Etc/UTC"
    )
    assert report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    with report_storage().open(execution.file_name, "rb") as handle:
        rows = list(csv.DictReader(io.StringIO(handle.read().decode())))
    assert execution.row_count == len(rows)
    return rows


def _api_items(client, query):
    items, cursor = [], None
    while True:
        page = client.get("/transactions", {**query, "limit": 100, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200, page.content
        items += page.json()["items"]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            return items


@pytest.fixture
def transactions(merchant_account, other_merchant_account):
    base = datetime(2026, 5, 10, 12, tzinfo=UTC)
    made = []
    for index in range(130):
        txn = TransactionFactory(
            merchant_account=merchant_account,
            captured=index % 3 == 0,
            declined=index % 3 == 1,
            currency="EUR" if index % 2 else "USD",
            amount=100 + index,
            card_scheme="mastercard" if index % 5 == 0 else "visa",
        )
        made.append(txn)
    # Spread over three days; a few share one instant, so the order's tie-break (the id) matters too.
    for index, txn in enumerate(made):
        txn.created_at = base - timedelta(hours=index // 2)
        txn.save(update_fields=["created_at"])
    TransactionFactory(merchant_account=other_merchant_account, captured=True)
    return made


CASES = [
    ({}, {}),
    ({"status": ["capture_succeeded"]}, {"status": ["capture_succeeded"]}),
    ({"currency": "EUR", "scheme": ["mastercard"]}, {"currency": ["EUR"], "payment_method_scheme": ["mastercard"]}),
    (
        {"created_at": {"start": "2026-05-09T00:00:00", "end": "2026-05-09T23:59:59.999999+00:00"}},
        {"created_at_gte": "2026-05-09T00:00:00+00:00", "created_at_lte": "2026-05-09T23:59:59.999999+00:00"},
    ),
    (
        {"status": ["authorization_declined", "capture_succeeded"], "created_at": {"end": "2026-05-08T12:00:00Z"}},
        {"status": ["authorization_declined", "capture_succeeded"], "created_at_lte": "2026-05-08T12:00:00Z"},
    ),
]


@pytest.mark.parametrize(("filters", "query"), CASES, ids=[str(case[0]) for case in CASES])
def test_rows_equal_the_list_for_the_same_filters(api_client, merchant_account, transactions, filters, query):
    rows = _report_rows(merchant_account, filters)
    items = _api_items(api_client(scopes=["transactions.read"]), query)

    assert [row["id"] for row in rows] == [item["id"] for item in items]
    assert len(rows) > 0
    for row, item in zip(rows, items, strict=True):
        assert row["status"] == item["status"]
        assert int(row["amount"]) == item["amount"]
        assert row["currency"] == item["currency"]
        assert int(row["captured_amount"]) == item["captured_amount"]
        assert row["method"] == item["method"]
        assert row["scheme"] == item["payment_method"]["scheme"]
        assert row["created_at"] == item["created_at"]
        assert row["settled"] == str(item["settled"]).lower()


def test_a_sort_orders_the_rows_by_its_fields_then_newest_first(merchant_account, transactions):
    sort = [{"field": "currency", "order": "asc"}, {"field": "amount", "order": "desc"}]
    report = ReportFactory(merchant_account=merchant_account, params={"fields": FIELDS, "filters": {}, "sort": sort})
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=timezone.now(), reference_timezone="Etc/UTC"
    )
    assert report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    with report_storage().open(execution.file_name, "rb") as handle:
        rows = list(csv.DictReader(io.StringIO(handle.read().decode())))

    keys = [(row["currency"], -int(row["amount"])) for row in rows]
    assert keys == sorted(keys)
    assert len(rows) == len(transactions)


def test_the_official_sdks_sort_is_taken_and_shown(api_client, merchant_account, transactions):
    client = api_client(scopes=["reports.read", "reports.write"])
    spec = {
        "model": "transactions",
        "params": {"fields": ["id", "created_at"], "sort": [{"field": "created_at", "order": "asc"}]},
    }
    body = {"name": "Oldest first", "schedule": "once", "schedule_enabled": True, "spec": spec}
    answer = client.post("/reports", body, format="json")

    assert answer.status_code == 201, answer.content
    assert answer.json()["spec"]["params"]["sort"] == [{"field": "created_at", "order": "asc"}]
    execution = ReportExecution.objects.get(report_id=answer.json()["id"])
    assert report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    with report_storage().open(execution.file_name, "rb") as handle:
        rows = list(csv.DictReader(io.StringIO(handle.read().decode())))
    assert [row["created_at"] for row in rows] == sorted(row["created_at"] for row in rows)
    assert rows[0]["created_at"] < rows[-1]["created_at"]


def test_every_field_by_default(merchant_account, transactions):
    from reports.sources.transactions import FIELDS as ALL

    rows = _report_rows(merchant_account, {"status": ["capture_succeeded"]}, fields=None)
    assert list(rows[0]) == list(ALL)


def test_a_wallet_payment_is_reported_and_listed_by_its_wallet(merchant_account, api_client):
    wallet = TransactionFactory(merchant_account=merchant_account, captured=True, method="applepay")
    TransactionFactory(merchant_account=merchant_account, captured=True)
    client = api_client(scopes=["transactions.read"])

    rows = _report_rows(merchant_account, {"method": ["applepay"]})

    assert [(row["id"], row["method"]) for row in rows] == [(str(wallet.pk), "applepay")]
    (item,) = _api_items(client, {"method": "applepay"})
    assert (item["id"], item["payment_method"]["method"], item["instrument_type"]) == (
        str(wallet.pk),
        "applepay",
        "applepay",
    )
