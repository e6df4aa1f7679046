"""A transactions report's every field holds what `GET /transactions/{id}` renders for that transaction, byte for byte
in its file, for every kind of transaction; and the report reads its rows in a number of statements that does not
grow with them."""

import csv
import io
import uuid
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from openpyxl import load_workbook

from buyers.tests.factories import BuyerFactory
from giftcards.tests.factories import IssuedGiftCardFactory
from paymentservices.models import PaymentService
from reports.models import ReportExecution
from reports.services.executions import report_execution_run
from reports.services.files import report_storage, write_csv, write_xlsx
from reports.sources import transactions as source
from reports.sources.rendered import cell, path
from reports.tests.factories import ReportFactory
from transactions.models import Transaction
from transactions.tests.conftest import CARD
from transactions.tests.factories import TransactionFactory
from transactions.tests.test_api import body, create, post
from transactions.tests.test_create_fields import THREE_D_SECURE_V1, THREE_D_SECURE_V2

pytestmark = pytest.mark.django_db

BILLING = {
    "first_name": "Ada",
    "last_name": "Lovelace",
    "email_address": "ada@example.com",
    "phone_number": "+442071234567",
    "address": {
        "city": "London",
        "country": "GB",
        "postal_code": "N1 9GU",
        "state": "Greater London",
        "state_code": "GB-LND",
        "house_number_or_name": "12",
        "line1": "12 Analytical Row",
        "line2": "Flat 3",
        "organization": "Engines Ltd",
    },
    "tax_id": {"value": "GB123456789", "kind": "gb.vat"},
}


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.fixture
def every_kind(client, merchant_account) -> list[str]:
    """One transaction of each kind a report meets, made through the API where it makes them; the ids."""
    made = [
        # Captured at once, with a guest buyer, metadata, a cart and 3-D Secure (version 2: its scheme is not shown).
        create(
            client,
            intent="capture",
            external_identifier="order-1",
            buyer={"display_name": "Ada Lovelace", "external_identifier": "ada", "billing_details": BILLING},
            metadata={"order": "1", "channel": "web"},
            cart_items=[{"name": "Tea", "quantity": 2, "unit_amount": 400}],
            three_d_secure_data=THREE_D_SECURE_V2,
        ),
        create(client, payment_method={**CARD, "number": "4000000000000002"}),  # declined
        create(client, three_d_secure_data={**THREE_D_SECURE_V1, "scheme": "visa"}, payment_source="moto"),
        # A formula's first character, which the files quote.
        create(client, external_identifier="=HYPERLINK(1)", metadata={"note": "-1"}, merchant_initiated=True),
        # A stored buyer's payment.
        create(client, buyer_id=str(BuyerFactory(merchant_account=merchant_account).pk)),
    ]
    refunded = create(client, intent="capture")
    assert post(client, f"/transactions/{refunded['id']}/refunds", {"amount": 500}).status_code == 201
    voided = create(client)
    assert post(client, f"/transactions/{voided['id']}/void").status_code == 200
    cards = [IssuedGiftCardFactory(merchant_account=merchant_account, amount=amount) for amount in (1000, 3000)]
    split = post(client, "/transactions", body(3500, gift_cards=[_gift_card(cards[0], 1000)]))
    alone = post(
        client, "/transactions", {**body(1500, gift_cards=[_gift_card(cards[1], 1500)]), "payment_method": None}
    )
    assert (split.status_code, alone.status_code) == (201, 201), (split.content, alone.content)
    ids = [item["id"] for item in made] + [refunded["id"], voided["id"], split.json()["id"], alone.json()["id"]]

    # Kinds the sandbox does not make: a wallet's, a PayPal account's, a settled one, one paying a payment link, one
    # waiting on its processor, and a guest whose details are empty.
    sandbox = PaymentService.objects.filter(merchant_account=merchant_account, definition_id="mock-card").first()
    others = [
        TransactionFactory(
            merchant_account=merchant_account, captured=True, method="applepay", payment_service=sandbox
        ),
        TransactionFactory(
            merchant_account=merchant_account, authorized=True, method="paypal", payer_label="a***@x.io"
        ),
        TransactionFactory(
            merchant_account=merchant_account,
            captured=True,
            settled_at=datetime(2026, 5, 1, 9, tzinfo=UTC),
            settled_amount=1250,
            settled_currency="EUR",
            payment_link_id=uuid.uuid4(),
            buyer_details={"id": None, "display_name": "Guest", "billing_details": None},
        ),
        TransactionFactory(merchant_account=merchant_account, buyer_details={}),
    ]
    return ids + [str(txn.pk) for txn in others]


def _gift_card(card, amount: int) -> dict:
    return {"number": card.number, "pin": card.pin, "amount": amount}


def _execution(merchant_account, file_format: str) -> ReportExecution:
    report = ReportFactory(merchant_account=merchant_account, file_format=file_format, params={"filters": {}})
    execution = ReportExecution.objects.create(
        report=report, reference_timestamp=timezone.now(), reference_timezone="Etc/UTC", file_format=file_format
    )
    assert report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    return execution


def _expected_rows(client, ids: list[str]) -> list[list]:
    """The report's rows as the API renders each transaction, in the report's order."""
    rows = []
    for pk in ids:
        answer = client.get(f"/transactions/{pk}")
        assert answer.status_code == 200, answer.content
        link = Transaction.objects.get(pk=pk).payment_link_id
        rendered = {**answer.json(), "payment_link_id": str(link) if link else None}
        rows.append([cell(path(*keys)(rendered)) for keys in source.FIELDS.values()])
    return rows


def _report_order(merchant_account) -> list[str]:
    newest_first = Transaction.objects.filter(merchant_account=merchant_account).order_by("-created_at", "-id")
    return [str(pk) for pk in newest_first.values_list("pk", flat=True)]


def test_every_field_of_a_csv_report_is_the_apis_to_the_byte(client, merchant_account, every_kind):
    execution = _execution(merchant_account, "csv")
    expected = io.BytesIO()
    write_csv(expected, list(source.FIELDS), _expected_rows(client, _report_order(merchant_account)))

    with report_storage().open(execution.file_name, "rb") as handle:
        written = handle.read()
    assert written.decode() == expected.getvalue().decode()
    # Each kind shows in the file: the guest's billing details, a gift card alone, the wallet, 3-D Secure.
    rows = list(csv.DictReader(io.StringIO(written.decode())))
    assert len(rows) == len(every_kind) == execution.row_count
    assert {row["method"] for row in rows} == {"card", "gift-card", "applepay", "paypal"}
    assert {"London", "GB-LND", "gb.vat", "'=HYPERLINK(1)", '{"channel":"web","order":"1"}'} <= {
        value for row in rows for value in row.values()
    }
    assert {row["three_d_secure_eci"] for row in rows} == {"05", ""}
    assert {row["settled"] for row in rows} == {"true", "false"}


def test_every_field_of_an_xlsx_report_is_the_apis(client, merchant_account, every_kind):
    execution = _execution(merchant_account, "xlsx")
    expected = io.BytesIO()
    write_xlsx(expected, list(source.FIELDS), _expected_rows(client, _report_order(merchant_account)))

    with report_storage().open(execution.file_name, "rb") as handle:
        written = load_workbook(io.BytesIO(handle.read()), read_only=True)["report"]
    wanted = load_workbook(expected, read_only=True)["report"]
    rows = list(written.values)
    assert rows == list(wanted.values)
    assert len(rows) == len(every_kind) + 1


@pytest.mark.parametrize("fields", [["id"], ["scheme", "billing_details_tax_id", "payment_link_id"], None])
def test_the_statements_a_report_runs_do_not_grow_with_its_rows(merchant_account, monkeypatch, fields):
    monkeypatch.setattr(source, "BATCH_SIZE", 2)

    def statements(count: int) -> int:
        Transaction.objects.all().delete()
        TransactionFactory.create_batch(count, merchant_account=merchant_account, captured=True)
        report = ReportFactory(merchant_account=merchant_account, params={"fields": fields, "filters": {}})
        execution = ReportExecution.objects.create(
            report=report, reference_timestamp=timezone.now(), reference_timezone="Etc/UTC"
        )
        with CaptureQueriesContext(connection) as run:
            assert report_execution_run(execution_id=str(execution.pk))
        execution.refresh_from_db()
        assert execution.row_count == count
        reads = [query for query in run.captured_queries if '"transactions_transaction"' in query["sql"]]
        assert len(reads) == 1, reads
        return len(run.captured_queries)

    assert statements(3) == statements(12)
