"""The ledger's upstream operations: what they answer, to whom, and the transaction's settled fields."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from settlements.models import EntryKind
from settlements.tests.factories import LedgerEntryFactory
from transactions.tests.factories import RefundFactory, TransactionFactory

PLURALS = {
    EntryKind.SETTLEMENT: "settlements",
    EntryKind.REFUND_SETTLEMENT: "refund-settlements",
    EntryKind.CHARGEBACK: "chargebacks",
    EntryKind.CHARGEBACK_REVERSAL: "chargeback-reversals",
}


@pytest.fixture
def reader(api_client, merchant_account):
    return api_client(scopes=["transactions.read"])


def _entry(kind=EntryKind.SETTLEMENT, **fields):
    if kind == EntryKind.REFUND_SETTLEMENT and "refund" not in fields:
        refund = RefundFactory(transaction__amount=10000)
        fields.update(refund=refund, transaction=refund.transaction)
    return LedgerEntryFactory(kind=kind, **fields)


def test_a_settlement_as_upstream_shapes_it(reader, merchant_account):
    entry = _entry(exchange_rate="1.0842")
    LedgerEntryFactory(transaction=entry.transaction, kind=EntryKind.CHARGEBACK, net_amount=-10000)

    listed = reader.get(f"/transactions/{entry.transaction_id}/settlements")
    one = reader.get(f"/transactions/{entry.transaction_id}/settlements/{entry.pk}")

    assert listed.status_code == one.status_code == 200
    assert [item["id"] for item in listed.json()["items"]] == [str(entry.pk)]
    body = one.json()
    assert body == listed.json()["items"][0]
    assert {key: body[key] for key in ("type", "amount", "currency", "commission", "interchange", "markup")} == {
        "type": "settlement",
        "amount": 10000,
        "currency": "USD",
        "commission": 320,
        "interchange": 150,
        "markup": 150,
    }
    assert (body["scheme_fee"], body["exchange_rate"], body["merchant_account_id"]) == (20, 1.0842, "default")
    assert body["payment_service_report_id"] == str(entry.report_id)
    assert body["payment_service_report_file_ids"] == [str(entry.file_id)]


@pytest.mark.parametrize("kind", list(PLURALS))
def test_each_list_answers_its_kind_only(reader, merchant_account, kind):
    entry = _entry(kind)
    LedgerEntryFactory(transaction=entry.transaction, kind=EntryKind.FEE if kind != EntryKind.FEE else kind)

    body = reader.get(f"/transactions/{entry.transaction_id}/{PLURALS[kind]}").json()

    assert [(item["id"], item["type"]) for item in body["items"]] == [(str(entry.pk), kind)]


def test_a_refund_settlement_names_its_refund(reader, merchant_account):
    entry = _entry(EntryKind.REFUND_SETTLEMENT)

    body = reader.get(f"/transactions/{entry.transaction_id}/refund-settlements/{entry.pk}").json()

    assert (body["type"], body["refund_id"]) == ("refund-settlement", str(entry.refund_id))


def test_a_list_costs_the_same_queries_for_one_record_or_many(reader, merchant_account):
    entry = _entry()
    path = f"/transactions/{entry.transaction_id}/settlements"
    reader.get(path)  # the API key's first use is recorded once
    with CaptureQueriesContext(connection) as one:
        reader.get(path)
    for _ in range(4):
        LedgerEntryFactory(transaction=entry.transaction)
    with CaptureQueriesContext(connection) as five:
        assert len(reader.get(path).json()["items"]) == 5

    assert len(five) == len(one) == 2  # the transaction, its records


def test_another_accounts_records_are_not_found(api_client, merchant_account, other_merchant_account):
    theirs = _entry(transaction=TransactionFactory(merchant_account=other_merchant_account, captured=True))
    client = api_client(scopes=["transactions.read"])

    assert client.get(f"/transactions/{theirs.transaction_id}/settlements").status_code == 404
    assert client.get(f"/transactions/{theirs.transaction_id}/settlements/{theirs.pk}").status_code == 404


def test_a_record_of_another_transaction_is_not_found(reader, merchant_account):
    entry = _entry()
    other = TransactionFactory(merchant_account=merchant_account, captured=True)

    answer = reader.get(f"/transactions/{other.pk}/settlements/{entry.pk}")

    assert answer.status_code == 404
    assert answer.json()["code"] == "not_found"


@pytest.mark.parametrize("record", ["not-a-uuid", "7d4f2b0e-3c1a-4e59-9a6b-2f8d1c0e5a34"], ids=["malformed", "unknown"])
def test_an_unknown_record_is_not_found(reader, merchant_account, record):
    entry = _entry()

    assert reader.get(f"/transactions/{entry.transaction_id}/settlements/{record}").status_code == 404


@pytest.mark.parametrize(
    ("scopes", "status"),
    [
        (["transactions.read"], 200),
        (["*.read"], 200),
        (["transactions.write"], 403),
        (["buyers.read"], 403),
        (["embed"], 403),
    ],
)
@pytest.mark.parametrize("plural", list(PLURALS.values()))
def test_permission_matrix(api_client, merchant_account, scopes, status, plural):
    entry = _entry()

    answer = api_client(scopes=scopes).get(f"/transactions/{entry.transaction_id}/{plural}")

    assert answer.status_code == status


def test_no_token_is_unauthorized(anonymous_client, merchant_account):
    entry = _entry()

    assert anonymous_client.get(f"/transactions/{entry.transaction_id}/settlements").status_code == 401


def test_the_transaction_answers_what_the_ledger_says(reader, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, captured=True)
    before = reader.get(f"/transactions/{txn.pk}").json()
    txn.settled_amount, txn.settled_currency = 9680, "USD"
    txn.settled_at = txn.captured_at
    txn.save()

    after = reader.get(f"/transactions/{txn.pk}").json()

    assert (before["settled"], before["settled_amount"], before["settled_currency"]) == (False, 0, None)
    assert (after["settled"], after["settled_amount"], after["settled_currency"]) == (True, 9680, "USD")
