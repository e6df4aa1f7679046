"""`manage.py seed_demo --transactions N --settlements M`: the sandbox's settlement of demo captures, in the ledger
and on the transactions as the ingestion leaves them, priced by the sandbox's price list; resumable."""

import io

import pytest
from django.core.management import call_command

from paymentservices.processors.sandbox import FIXED_FEE, PERCENT_FEE
from settlements.demo import demo_ledger_entries
from transactions.demo import demo_transactions

pytestmark = pytest.mark.django_db


def _seed(**options) -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out, stderr=io.StringIO(), **options)
    return out.getvalue()


def test_demo_captures_of_closed_days_are_settled_in_the_ledger(merchant_account, api_client):
    _seed(transactions=40)
    captured = demo_transactions(merchant_account).filter(status="capture_succeeded").count()

    output = _seed(settlements=5, batch_size=2)

    assert "Settlements: 5 created" in output
    entries = list(demo_ledger_entries(merchant_account).select_related("transaction"))
    assert len(entries) == 5
    for entry in entries:
        txn = entry.transaction
        fee = min(entry.amount, int((entry.amount * PERCENT_FEE).quantize(1)) + FIXED_FEE)
        assert (entry.kind, entry.source, entry.amount, entry.currency) == (
            "settlement",
            "mock-card",
            txn.amount,
            txn.currency,
        )
        assert abs(entry.commission - fee) <= 1  # the sandbox rounds half up
        assert entry.net_amount == entry.amount - entry.commission
        assert entry.posted_at.date() > txn.captured_at.date()
        assert (txn.settled, txn.settled_amount, txn.settled_currency) == (True, entry.net_amount, entry.currency)
        assert [event.name for event in txn.events.all()][-1] == "settled"
        assert entry.report.name.startswith("demo ")
    [one] = [entries[0]]
    answer = api_client(scopes=["transactions.read"]).get(f"/transactions/{one.transaction_id}/settlements").json()
    assert [item["commission"] for item in answer["items"]] == [one.commission]

    again = _seed(settlements=5)
    assert "Settlements: 0 created" in again
    more = _seed(settlements=1000)
    assert demo_ledger_entries(merchant_account).count() <= captured
    assert "every demo capture of a closed day is settled" in more


@pytest.mark.postgres  # COPY is PostgreSQL's
def test_on_postgresql_the_rows_go_in_through_copy_with_every_column(merchant_account):
    _seed(transactions=30)

    _seed(settlements=3)

    entry = demo_ledger_entries(merchant_account).first()
    assert entry.fee_details == [{"type": "processing", "amount": entry.commission, "currency": entry.currency}]
    assert entry.available_on is not None
