"""Stripe's settlement records ingested from localstripe (a fake Stripe run as a real process, with the fee and the
automatic payouts of paymentservices/processors/stripe/tests/localstripe_balance.py), read through Stripe's official
library: a payment made through a Stripe service shows settled with Stripe's fee and net; refunds, payouts and what
they paid; the same records twice add nothing; a line that is not ours is kept and shown; a garbled file changes
nothing.

localstripe keeps one Stripe account for every key, so two merchant accounts' services read the same balance: each
account's ledger matches only its own payments."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
import stripe

from paymentservices.processors.stripe import PROCESSOR as STRIPE
from paymentservices.processors.stripe import read_stripe_file
from paymentservices.processors.stripe.tests.mock import FakeStripe, localstripe_connected, stripe_fee
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.tests.factories import PaymentServiceFactory
from settlements.models import EntryKind, FileStatus, LedgerEntry, SettlementReportFile
from settlements.selectors import unmatched_ledger_entries
from settlements.services import Outcome, SettlementFile, settlement_file_ingest
from settlements.sources import settlements_ingest
from tests.servers import free_port
from transactions.models import Transaction
from transactions.tests.conftest import CARD

pytestmark = pytest.mark.django_db

SECRET = "sk_test_settlements_0123456789"


@pytest.fixture
def fake(settings) -> FakeStripe:
    """A localstripe of this test's own, so its balance holds only this test's payments."""
    with localstripe_connected(settings) as running:
        yield running


@pytest.fixture
def service(fake, merchant_account):
    return PaymentServiceFactory(merchant_account=merchant_account, fields=[{"key": "secret_key", "value": SECRET}])


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def at_stripe(fake: FakeStripe) -> stripe.StripeClient:
    return stripe.StripeClient(SECRET, base_addresses={"api": fake.url}, max_network_retries=0)


def pay(client, service, amount=1000) -> Transaction:
    payload = {
        "amount": amount,
        "currency": "EUR",
        "payment_method": CARD,
        "intent": "capture",
        "payment_service_id": str(service.pk),
    }
    response = client.post("/transactions", payload, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["status"] == "capture_succeeded"
    return Transaction.objects.get(pk=response.json()["id"])


def ingest():
    return settlements_ingest(sources=["stripe-card"])["stripe-card"]


def test_a_stripe_payment_shows_settled_with_stripes_fee_and_net(client, service, fake):
    txn = pay(client, service, amount=1000)

    [result] = ingest()

    assert (result.outcome, result.entries, result.unmatched) == (Outcome.INGESTED, 1, 0)
    entry = LedgerEntry.objects.get()
    fee = stripe_fee(1000)  # 59: 2.9% + 30
    assert (entry.kind, entry.source, entry.transaction_id, entry.processor_type) == (
        EntryKind.SETTLEMENT,
        "stripe-card",
        txn.pk,
        "charge",
    )
    assert (entry.amount, entry.currency, entry.commission, entry.net_amount) == (1000, "EUR", fee, 1000 - fee)
    assert entry.fee_details == [
        {"type": "stripe_fee", "amount": fee, "currency": "EUR", "description": "Stripe processing fees"}
    ]
    balance = at_stripe(fake).v1.balance_transactions.retrieve(entry.entry_key)
    assert entry.available_on == datetime.fromtimestamp(balance.available_on, tz=UTC).date()
    assert entry.processor_reference == txn.payment_service_transaction_id
    assert entry.report.payment_service_id == service.pk
    read = client.get(f"/transactions/{txn.pk}").json()
    assert (read["settled"], read["settled_amount"], read["settled_currency"]) == (True, 1000 - fee, "EUR")
    [settlement] = client.get(f"/transactions/{txn.pk}/settlements").json()["items"]
    assert (settlement["amount"], settlement["commission"]) == (1000, fee)


def test_a_refund_is_taken_back_from_the_settled_net(client, service):
    txn = pay(client, service, amount=2000)
    response = client.post(f"/transactions/{txn.pk}/refunds", {"amount": 500}, format="json")
    assert response.status_code == 201, response.json()

    ingest()

    refund_entry = LedgerEntry.objects.get(kind=EntryKind.REFUND_SETTLEMENT)
    assert (refund_entry.amount, refund_entry.net_amount, refund_entry.commission) == (500, -500, 0)
    assert (str(refund_entry.refund_id), refund_entry.transaction_id) == (response.json()["id"], txn.pk)
    txn.refresh_from_db()
    assert (txn.settled, txn.settled_amount) == (True, 2000 - stripe_fee(2000) - 500)


def test_the_same_records_twice_add_nothing(client, service, fake):
    txn = pay(client, service)
    ingest()
    first = list(LedgerEntry.objects.values_list("pk", "entry_key"))

    assert ingest() == []  # nothing new: the newest page is all in the ledger
    page = json.dumps([_record(fake, first[0][1])], sort_keys=True).encode()
    again = settlement_file_ingest(
        merchant_account=service.merchant_account, payment_service=service, file=_file(page, name="a page read again")
    )

    assert (again.outcome, again.entries) == (Outcome.INGESTED, 0)
    assert list(LedgerEntry.objects.values_list("pk", "entry_key")) == first
    assert txn.events.filter(name="settled").count() == 1


def test_pages_are_read_down_to_the_ledger_and_ingested_oldest_first(client, service, monkeypatch):
    paid = [pay(client, service, amount=1000 + n) for n in range(3)]
    monkeypatch.setattr(STRIPE.settlements, "page_size", 1)

    results = ingest()

    assert [result.outcome for result in results] == [Outcome.INGESTED] * 3
    assert {entry.transaction_id for entry in LedgerEntry.objects.all()} == {txn.pk for txn in paid}
    newer = pay(client, service, amount=1500)
    [result] = ingest()
    assert LedgerEntry.objects.get(file=result.file).transaction_id == newer.pk


def test_a_paid_payout_is_an_entry_and_names_the_lines_it_paid(client, service, fake):
    txn = pay(client, service, amount=1000)
    ingest()
    net = 1000 - stripe_fee(1000)
    payout = at_stripe(fake).v1.payouts.create(params={"amount": net, "currency": "eur", "status": "paid"})  # type: ignore[typeddict-unknown-key]

    [result] = ingest()

    assert result.file.name == f"payout {payout.id}"
    entry = LedgerEntry.objects.get(kind=EntryKind.PAYOUT)
    assert (entry.amount, entry.net_amount, entry.payout_reference) == (net, -net, payout.id)
    assert entry.posted_at == datetime.fromtimestamp(payout.arrival_date, tz=UTC)
    assert LedgerEntry.objects.get(transaction=txn).payout_reference == payout.id
    assert ingest() == []


def test_a_line_that_is_not_ours_is_kept_and_listed_for_the_operator(service, fake, merchant_account):
    stripe_api = at_stripe(fake).v1
    method = stripe_api.payment_methods.create(
        params={"type": "card", "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2034, "cvc": "123"}}
    )
    stripe_api.payment_intents.create(
        params={"amount": 700, "currency": "eur", "payment_method": method.id, "confirm": True}
    )

    [result] = ingest()

    assert result.unmatched == 1
    [entry] = unmatched_ledger_entries(merchant_account=merchant_account)
    assert (entry.amount, entry.net_amount, entry.transaction_id) == (700, 700 - stripe_fee(700), None)


def test_each_account_matches_only_its_own_payments(client, service, other_merchant_account):
    txn = pay(client, service)
    PaymentServiceFactory(merchant_account=other_merchant_account, fields=[{"key": "secret_key", "value": SECRET}])

    ingest()

    ours = LedgerEntry.objects.get(merchant_account=service.merchant_account)
    theirs = LedgerEntry.objects.get(merchant_account=other_merchant_account)
    assert ours.transaction_id == txn.pk
    assert theirs.transaction_id is None  # the same Stripe line, read by the other account: never our payment
    assert list(unmatched_ledger_entries(merchant_account=other_merchant_account)) == [theirs]
    assert txn.events.filter(name="settled").count() == 1


def test_a_garbled_file_changes_nothing(service):
    good = {"id": "txn_1", "type": "charge", "amount": 100, "currency": "eur", "fee": 33, "net": 67, "created": 1}
    for garbled in (b"[{", json.dumps([{**good, "amount": "100"}]).encode(), json.dumps({"payout": None}).encode()):
        result = settlement_file_ingest(
            merchant_account=service.merchant_account, payment_service=service, file=_file(garbled, name=str(garbled))
        )
        assert result.outcome == Outcome.REFUSED
        assert "Nothing from the file was recorded" in result.message
    assert not LedgerEntry.objects.exists()
    assert SettlementReportFile.objects.filter(status=FileStatus.REFUSED).count() == 3


def test_stripe_not_answering_writes_nothing_and_is_read_next_run(client, service, settings, caplog):
    pay(client, service)
    reachable = settings.PROCESSORS["stripe"]["API_BASE"]
    override_processor(settings, "stripe", API_BASE=f"http://127.0.0.1:{free_port()}")

    assert ingest() == []
    assert not SettlementReportFile.objects.exists()
    assert "not read (SettlementUnread): Stripe did not answer" in caplog.text

    override_processor(settings, "stripe", API_BASE=reachable)
    assert [result.outcome for result in ingest()] == [Outcome.INGESTED]


def _record(fake: FakeStripe, balance_transaction_id: str) -> dict:
    from paymentservices.processors.stripe import balance_transaction_record

    entry = at_stripe(fake).v1.balance_transactions.retrieve(balance_transaction_id, params={"expand": ["source"]})
    return balance_transaction_record(entry)


def _file(content: bytes, *, name: str) -> SettlementFile:
    return SettlementFile(
        source="stripe-card", report_name="a report", name=name, content=content, read=read_stripe_file
    )
