"""The ingestion service: a file whole or not at all, once, matched, nothing dropped; the sandbox's daily report."""

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from payments.connectors.models import SandboxOperation
from payments.outbox.models import OutboxEvent
from paymentservices.processors.sandbox import read_sandbox_report
from settlements.models import FileStatus, LedgerEntry, SettlementReportFile
from settlements.selectors import mismatched_ledger_entries
from settlements.services import Outcome, SettlementFile, settlement_file_ingest
from settlements.sources.sandbox import settlements_sandbox_ingest
from transactions.models import Transaction
from transactions.tests.factories import RefundFactory, TransactionFactory

DAY = date(2026, 3, 2)


def sandbox_file(lines, *, day=DAY, name=None):
    content = json.dumps({"day": day.isoformat(), "lines": lines}).encode()
    return SettlementFile(
        source="mock-card",
        report_name=day.isoformat(),
        name=name or f"settlement-{day}.json",
        content=content,
        read=read_sandbox_report,
    )


def capture_line(txn, amount=10000):
    return {
        "operation": "capture",
        "reference": str(txn.pk),
        "processor_reference": f"sandbox-capture-{txn.pk}",
        "amount": amount,
        "currency": txn.currency,
    }


def ingest(account, file):
    return settlement_file_ingest(merchant_account=account, payment_service=None, file=file)


@pytest.fixture
def captured(merchant_account):
    return TransactionFactory(merchant_account=merchant_account, captured=True, amount=10000, currency="EUR")


def test_a_settlement_tells_the_transaction_its_net_with_an_event_and_a_webhook(merchant_account, captured):
    from webhooks.models import WebhookSubscription  # a listener, so the outbox keeps events

    WebhookSubscription.objects.create(merchant_account=merchant_account, url="https://hooks.example/a")
    result = ingest(merchant_account, sandbox_file([capture_line(captured)]))

    assert (result.outcome, result.entries, result.unmatched) == (Outcome.INGESTED, 1, 0)
    entry = LedgerEntry.objects.get()
    # 2.9% + 30 of 100.00 EUR: 320, of which interchange 150, scheme fee 20, markup 150.
    assert (entry.amount, entry.commission, entry.interchange, entry.scheme_fee, entry.markup) == (
        10000,
        320,
        150,
        20,
        150,
    )
    assert (entry.net_amount, entry.currency, entry.transaction_id) == (9680, "EUR", captured.pk)
    assert entry.posted_at == datetime(2026, 3, 3, tzinfo=UTC)
    captured.refresh_from_db()
    assert (captured.settled, captured.settled_amount, captured.settled_currency) == (True, 9680, "EUR")
    assert captured.events.filter(name="settled", amount=9680).count() == 1
    assert OutboxEvent.objects.filter(name="transaction.settled", target_id=str(captured.pk)).count() == 1


def test_the_same_file_twice_adds_nothing(merchant_account, captured):
    ingest(merchant_account, sandbox_file([capture_line(captured)]))
    again = ingest(merchant_account, sandbox_file([capture_line(captured)]))

    assert again.outcome == Outcome.ALREADY_INGESTED
    assert LedgerEntry.objects.count() == 1
    assert SettlementReportFile.objects.count() == 1
    assert captured.events.filter(name__startswith="settle").count() == 1


def test_a_line_repeated_in_another_file_adds_nothing(merchant_account, captured):
    ingest(merchant_account, sandbox_file([capture_line(captured)]))
    other = ingest(merchant_account, sandbox_file([capture_line(captured)], name="resent.json"))

    assert (other.outcome, other.entries) == (Outcome.INGESTED, 0)
    assert LedgerEntry.objects.count() == 1


@pytest.mark.parametrize(
    "content",
    [b'{"day": "2026-03-02", "lines": [{"operation": "capture"', b"\x00\xff garbage", b'{"day": "yesterday"}'],
    ids=["truncated", "garbled", "no-date"],
)
def test_an_unreadable_file_is_refused_whole_with_a_message(merchant_account, captured, content):
    good = capture_line(captured)
    file = SettlementFile("mock-card", "2026-03-02", "settlement-2026-03-02.json", content, read_sandbox_report)

    result = ingest(merchant_account, file)

    assert result.outcome == Outcome.REFUSED
    assert "Nothing from the file was recorded" in result.message
    assert LedgerEntry.objects.count() == 0
    refused = SettlementReportFile.objects.get()
    assert (refused.status, refused.message) == (FileStatus.REFUSED, result.message)
    captured.refresh_from_db()
    assert not captured.settled
    # The file published right afterwards goes in.
    assert ingest(merchant_account, sandbox_file([good])).outcome == Outcome.INGESTED


def test_a_bad_line_after_good_ones_refuses_the_whole_file(merchant_account, captured):
    lines = [capture_line(captured), {"operation": "capture", "reference": "x", "amount": "ten"}]

    result = ingest(merchant_account, sandbox_file(lines))

    assert result.outcome == Outcome.REFUSED
    assert "Line 2" in result.message
    assert LedgerEntry.objects.count() == 0


def test_a_changed_copy_of_an_ingested_file_is_refused(merchant_account, captured):
    ingest(merchant_account, sandbox_file([capture_line(captured)]))

    result = ingest(merchant_account, sandbox_file([capture_line(captured, amount=5)]))

    assert result.outcome == Outcome.REFUSED
    assert "ingested before with other content" in result.message
    assert LedgerEntry.objects.get().amount == 10000


def test_an_entry_matching_nothing_is_kept_unmatched(merchant_account, captured):
    stranger = {**capture_line(captured), "reference": "0b5e1d9e-1111-4222-8333-444455556666"}

    result = ingest(merchant_account, sandbox_file([stranger]))

    assert (result.entries, result.unmatched) == (1, 1)
    assert LedgerEntry.objects.get().transaction_id is None


def test_another_accounts_transaction_is_never_matched(merchant_account, other_merchant_account):
    theirs = TransactionFactory(merchant_account=other_merchant_account, captured=True, amount=10000)

    result = ingest(merchant_account, sandbox_file([capture_line(theirs)]))

    assert result.unmatched == 1
    theirs.refresh_from_db()
    assert not theirs.settled


def test_a_refund_settlement_lowers_the_net_and_marks_the_refund(merchant_account, captured):
    refund = RefundFactory(transaction=captured, amount=2500, currency="EUR")
    ingest(merchant_account, sandbox_file([capture_line(captured)]))
    line = {
        "operation": "refund",
        "reference": str(refund.pk),
        "processor_reference": "sandbox-refund-x",
        "amount": 2500,
        "currency": "EUR",
    }

    ingest(merchant_account, sandbox_file([line], day=DAY + timedelta(days=1)))

    captured.refresh_from_db()
    refund.refresh_from_db()
    assert (captured.settled_amount, refund.settled, refund.settled_amount) == (9680 - 2500, True, 2500)
    assert captured.events.filter(name="settlement_updated", amount=7180).count() == 1


def _decided(reference, operation, amount, at):
    SandboxOperation.objects.create(
        reference=reference,
        operation=operation,
        outcome="approved",
        processor_reference=f"sandbox-{operation}-{reference}",
        amount=amount,
        currency="EUR",
    )
    SandboxOperation.objects.filter(reference=reference).update(decided_at=at)


def test_the_sandbox_settles_yesterdays_captures_once(merchant_account, captured):
    today = date(2026, 3, 10)
    _decided(f"{captured.pk}:capture", "capture", 10000, datetime(2026, 3, 9, 15, tzinfo=UTC))
    not_yet = TransactionFactory(merchant_account=merchant_account, captured=True)
    _decided(f"{not_yet.pk}:capture", "capture", 1299, datetime(2026, 3, 10, 1, tzinfo=UTC))

    first = settlements_sandbox_ingest(today=today)
    second = settlements_sandbox_ingest(today=today)

    assert [r.outcome for r in first] == [Outcome.INGESTED]
    assert second == []
    captured.refresh_from_db()
    not_yet.refresh_from_db()
    assert (captured.settled_amount, not_yet.settled) == (9680, False)


def test_each_capture_of_a_payment_on_one_day_is_its_own_line(merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, captured=True, amount=10000, currency="EUR")
    at = datetime(2026, 3, 9, 15, tzinfo=UTC)
    _decided(f"{txn.pk}:capture", "capture", 3000, at)
    _decided(f"{txn.pk}:capture:2", "capture", 2000, at)
    _decided(f"{txn.pk}:capture:3", "capture", 1000, at)

    [result] = settlements_sandbox_ingest(today=date(2026, 3, 10))

    assert (result.outcome, result.entries) == (Outcome.INGESTED, 3)
    assert sorted(LedgerEntry.objects.filter(transaction=txn).values_list("amount", flat=True)) == [1000, 2000, 3000]
    txn.refresh_from_db()
    # 2.9% + 30 of each capture: 117, 88 and 59.
    assert (txn.settled, txn.settled_amount) == (True, 6000 - 117 - 88 - 59)
    assert set(LedgerEntry.objects.values_list("mismatch", flat=True)) == {""}  # within the 100.00 captured


def test_two_lines_of_one_file_under_one_key_refuse_it_with_a_record(merchant_account, captured):
    result = ingest(merchant_account, sandbox_file([capture_line(captured), capture_line(captured, amount=500)]))

    assert result.outcome == Outcome.REFUSED
    assert "entries 1 and 2" in result.message
    assert SettlementReportFile.objects.get().status == FileStatus.REFUSED
    assert not LedgerEntry.objects.exists()


STRIPE_CHARGE = {
    "id": "txn_1",
    "type": "charge",
    "amount": 1000,
    "currency": "eur",
    "fee": 59,
    "net": 941,
    "created": 1767225600,
    "available_on": 1767312000,
    "payment_intent": "pi_1",
}


@pytest.mark.parametrize(
    ("record", "says"),
    [
        ({"amount": 10**20}, "`amount` is not an amount the ledger holds"),
        ({"net": -(10**19)}, "`net_amount` is not an amount the ledger holds"),
        ({"currency": "xyz"}, "not an ISO 4217 currency"),
        ({"reference": "order\x00-1"}, "`merchant_reference`"),
        ({"payment_intent": "pi_" + "1" * 300}, "`processor_reference`"),
        ({"exchange_rate": 1e300}, "not an exchange rate"),
        ({"exchange_rate": "\u0661"}, "not an exchange rate"),
        ({"fee_details": [{"type": "stripe_fee", "amount": 59, "currency": "eur", "description": "a\x00b"}]}, "NUL"),
    ],
    ids=["amount", "net", "currency", "nul", "long-reference", "rate", "rate-as-text", "fee-detail-nul"],
)
def test_a_value_beyond_the_ledger_refuses_a_stripe_file_with_a_record(merchant_account, record, says):
    from paymentservices.processors.stripe import read_stripe_file

    content = json.dumps([{**STRIPE_CHARGE, **record}]).encode()
    file = SettlementFile(
        source="stripe-card", report_name="a report", name="page", content=content, read=read_stripe_file
    )

    result = ingest(merchant_account, file)

    assert result.outcome == Outcome.REFUSED
    assert says in result.message
    assert SettlementReportFile.objects.get().status == FileStatus.REFUSED
    assert not LedgerEntry.objects.exists()


def test_a_value_the_database_refuses_after_the_checks_refuses_the_file_with_a_record(merchant_account, monkeypatch):
    """The last resort: what no check foresaw and the database refuses is a refused file, not a crash."""
    from settlements import services

    def refuse(*args, **kwargs):
        raise services.DatabaseError("value too long for type character varying(255)")

    monkeypatch.setattr(services, "_tell_transactions", refuse)
    txn = TransactionFactory(merchant_account=merchant_account, captured=True, amount=10000, currency="EUR")

    result = ingest(merchant_account, sandbox_file([capture_line(txn)]))

    assert result.outcome == Outcome.REFUSED
    assert "The database refused the file (DatabaseError)" in result.message
    assert SettlementReportFile.objects.get().status == FileStatus.REFUSED
    assert not LedgerEntry.objects.exists()


def _partially_captured(merchant_account, *, captured_amount=600, currency="EUR"):
    txn = TransactionFactory(
        merchant_account=merchant_account,
        captured=True,
        amount=900,
        currency=currency,
        payment_service_transaction_id="pi_partial",
    )
    Transaction.objects.filter(pk=txn.pk).update(captured_amount=captured_amount)
    return txn


def _stripe_page(merchant_account, *records, name="page"):
    from paymentservices.processors.stripe import read_stripe_file

    content = json.dumps(list(records)).encode()
    file = SettlementFile(
        source="stripe-card", report_name="a report", name=name, content=content, read=read_stripe_file
    )
    return ingest(merchant_account, file)


def test_a_settlement_grosser_than_the_capture_is_kept_and_flagged_to_the_operator(merchant_account, support_client):
    txn = _partially_captured(merchant_account)
    charge = {**STRIPE_CHARGE, "amount": 900, "fee": 59, "net": 841, "payment_intent": "pi_partial"}

    result = _stripe_page(merchant_account, charge)

    assert result.outcome == Outcome.INGESTED
    entry = LedgerEntry.objects.get()
    assert entry.transaction_id == txn.pk
    assert entry.mismatch == "Settled gross EUR 9.00 is more than the EUR 6.00 captured."
    txn.refresh_from_db()
    assert (txn.settled, txn.settled_amount) == (True, 841)  # what the processor says, kept
    assert list(mismatched_ledger_entries()) == [entry]
    page = support_client.get("/admin/").content.decode()
    assert "Settlement lines that do not match their payment" in page
    assert "Settled gross EUR 9.00 is more than the EUR 6.00 captured." in page
    listed = support_client.get("/admin/settlements/ledgerentry/?matched=mismatch").content.decode()
    assert "pi_partial" in listed


def test_a_second_settlement_that_takes_the_gross_past_the_capture_is_the_one_flagged(merchant_account):
    _partially_captured(merchant_account)
    first = {**STRIPE_CHARGE, "id": "txn_a", "amount": 400, "fee": 42, "net": 358, "payment_intent": "pi_partial"}
    second = {**STRIPE_CHARGE, "id": "txn_b", "amount": 300, "fee": 39, "net": 261, "payment_intent": "pi_partial"}

    _stripe_page(merchant_account, first, name="one")
    _stripe_page(merchant_account, second, name="two")

    flags = dict(LedgerEntry.objects.values_list("entry_key", "mismatch"))
    assert flags == {"txn_a": "", "txn_b": "Settled gross EUR 7.00 is more than the EUR 6.00 captured."}


def test_a_converted_settlement_is_compared_in_the_payments_currency(merchant_account):
    _partially_captured(merchant_account, captured_amount=600, currency="EUR")
    # 6.00 EUR at 1.1 is 6.60 USD: as captured. 9.90 USD is 9.00 EUR: more.
    within = {**STRIPE_CHARGE, "id": "txn_a", "amount": 660, "currency": "usd", "exchange_rate": 1.1}
    beyond = {**STRIPE_CHARGE, "id": "txn_b", "amount": 990, "currency": "usd", "exchange_rate": 1.1}

    _stripe_page(merchant_account, {**within, "payment_intent": "pi_partial"}, name="one")
    assert LedgerEntry.objects.get().mismatch == ""
    LedgerEntry.objects.all().delete()
    _stripe_page(merchant_account, {**beyond, "payment_intent": "pi_partial"}, name="two")
    assert LedgerEntry.objects.get().mismatch == (
        "Settled gross EUR 9.00 (this line: USD 9.90 at 1.1) is more than the EUR 6.00 captured."
    )


def test_a_settlement_in_another_currency_with_no_rate_is_flagged(merchant_account):
    _partially_captured(merchant_account)

    _stripe_page(merchant_account, {**STRIPE_CHARGE, "amount": 500, "currency": "usd", "payment_intent": "pi_partial"})

    assert "no exchange rate" in LedgerEntry.objects.get().mismatch
