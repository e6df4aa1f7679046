"""The `payouts` model holds the rows `GET /payouts` answers for the same filters, with the card masked as the API
masks it; the `transactions` model names the payment link a transaction paid."""

import csv
import io
import uuid

import pytest
from django.utils import timezone

from paymentlinks.tests.factories import PaymentLinkFactory
from payouts.tests.factories import PayoutFactory
from reports.models import ReportExecution
from reports.services.executions import report_execution_run
from reports.services.files import report_storage
from reports.tests.factories import ReportFactory
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db


def _rows(merchant_account, model, params):
    report = ReportFactory(merchant_account=merchant_account, model=model, params=params)
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=timezone.now(), reference_timezone="Etc/UTC"
    )
    assert report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    with report_storage().open(execution.file_name, "rb") as handle:
        return list(csv.DictReader(io.StringIO(handle.read().decode())))


@pytest.fixture
def payouts(merchant_account, other_merchant_account):
    paid = PayoutFactory(merchant_account=merchant_account, amount=1500, external_identifier="seller-1")
    declined = PayoutFactory(merchant_account=merchant_account, number="4000000000000002")
    PayoutFactory(merchant_account=other_merchant_account)
    return paid, declined


def test_a_payouts_report_lists_the_accounts_payouts_as_the_api_shows_them(api_client, merchant_account, payouts):
    paid, declined = payouts
    rows = _rows(merchant_account, "payouts", {"fields": None, "filters": {}})
    items = api_client(scopes=["payouts.read"]).get("/payouts").json()["items"]

    assert [row["id"] for row in rows] == [item["id"] for item in items] == [str(declined.pk), str(paid.pk)]
    row, item = rows[1], items[1]
    assert (row["status"], row["amount"], row["currency"]) == ("succeeded", "1500", "USD")
    assert row["payment_service_payout_id"] == item["payment_service_payout_id"] != ""
    assert row["payment_service_id"] == item["payment_service"]["id"]
    assert (row["payment_method_label"], row["scheme"]) == ("1111", "visa")
    assert row["card_country"] == (item["payment_method"]["country"] or "")
    assert "4111111111111111" not in str(rows)
    assert rows[0]["status"] == "declined"


def test_a_payouts_report_filters_and_sorts_as_the_list_does(merchant_account, payouts):
    paid, _ = payouts
    rows = _rows(merchant_account, "payouts", {"fields": ["id", "status"], "filters": {"status": ["succeeded"]}})
    assert rows == [{"id": str(paid.pk), "status": "succeeded"}]

    by_amount = _rows(
        merchant_account, "payouts", {"fields": ["amount"], "sort": [{"field": "amount", "order": "desc"}]}
    )
    assert [row["amount"] for row in by_amount] == ["1500", "1299"]


def test_a_payouts_text_cell_is_never_a_formula(merchant_account):
    PayoutFactory(merchant_account=merchant_account, external_identifier='=HYPERLINK("https://evil.example")')
    rows = _rows(merchant_account, "payouts", {"fields": ["external_identifier"], "filters": {}})
    assert rows == [{"external_identifier": '\'=HYPERLINK("https://evil.example")'}]


@pytest.mark.parametrize(
    ("params", "pointer"),
    [
        ({"filters": {"status": ["lost"]}}, "/spec/params/filters/status"),
        ({"filters": {"external_identifier": 7}}, "/spec/params/filters/external_identifier"),
        ({"filters": {"created_at": {"start": "yesterday"}}}, "/spec/params/filters/created_at/start"),
        ({"fields": ["card_number"]}, "/spec/params/fields/0"),
        (
            {"model": "transactions", "filters": {"payment_link_id": "not-a-link"}},
            "/spec/params/filters/payment_link_id",
        ),
        ({"sort": [{"field": "buyer_external_identifier"}]}, "/spec/params/sort/0/field"),
    ],
    ids=["status", "text", "date", "field", "link", "sort"],
)
def test_bad_payouts_params_are_400s_naming_them(api_client, merchant_account, params, pointer):
    model = params.pop("model", "payouts")
    body = {"name": "Payouts", "schedule": "once", "schedule_enabled": True}
    answer = api_client(scopes=["reports.write"]).post(
        "/reports", {**body, "spec": {"model": model, "params": params}}, format="json"
    )
    assert answer.status_code == 400, answer.content
    assert [detail["pointer"] for detail in answer.json()["details"]] == [pointer]


def test_a_transactions_report_names_the_payment_link_paid_and_filters_by_it(merchant_account):
    link = PaymentLinkFactory(merchant_account=merchant_account)
    through_link = TransactionFactory(merchant_account=merchant_account, payment_link_id=link.pk, captured=True)
    TransactionFactory(merchant_account=merchant_account, captured=True)

    every = _rows(merchant_account, "transactions", {"fields": ["id", "payment_link_id"], "filters": {}})
    by_link = _rows(merchant_account, "transactions", {"fields": ["id"], "filters": {"payment_link_id": str(link.pk)}})

    assert {row["id"]: row["payment_link_id"] for row in every}[str(through_link.pk)] == str(link.pk)
    assert sorted(row["payment_link_id"] for row in every) == ["", str(link.pk)]
    assert by_link == [{"id": str(through_link.pk)}]
    other_link = {"fields": ["id"], "filters": {"payment_link_id": str(uuid.uuid4())}}
    assert _rows(merchant_account, "transactions", other_link) == []
