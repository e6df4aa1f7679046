"""PayPal's settlement records read from its Transaction Search through `paypal-server-sdk`, against Prism serving the
project's contract of the document (paymentservices/processors/paypal/tests/mock.py): a PayPal payment shows settled
with PayPal's fee and net, a refund is taken back with the fee PayPal gives back, a line that is not ours is kept and
shown; pages and 31-day windows are each asked once, in order, each request valid by PayPal's document; the same
records twice add nothing."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from paymentservices.models import PaymentService
from paymentservices.processors.paypal import PROCESSOR as PAYPAL
from paymentservices.processors.paypal import read_paypal_file
from paymentservices.processors.paypal.tests.mock import CAPTURE_ID, FOREIGN_ID, REFUND_ID
from paymentservices.processors.settling import SettlementUnreadable
from paymentservices.tests.factories import PaymentServiceFactory
from settlements.models import EntryKind, LedgerEntry, SettlementReportFile
from settlements.selectors import unmatched_ledger_entries
from settlements.services import Outcome
from settlements.sources import settlement_sources, settlements_ingest
from transactions.models import Transaction
from transactions.tests.factories import RefundFactory, TransactionFactory

pytestmark = pytest.mark.django_db

SEARCH = "/v1/reporting/transactions"


@pytest.fixture
def paypal(merchant_account, paypal_api, monkeypatch) -> PaymentService:
    """A PayPal service whose first run reads one day back: one window (the double answers each alike)."""
    monkeypatch.setattr(PAYPAL.settlements, "first_read", timedelta(days=1))
    credentials = [{"key": "client_id", "value": "AeA1QIZXiflr1"}, {"key": "client_secret", "value": "ECYYrrSHdKfk"}]
    return PaymentServiceFactory(merchant_account=merchant_account, definition_id=PAYPAL.id, fields=credentials)


@pytest.fixture
def captured(paypal) -> Transaction:
    """A 10.00 USD PayPal payment captured (its reference at PayPal is the capture's id from then on)."""
    return TransactionFactory(
        merchant_account=paypal.merchant_account,
        payment_service=paypal,
        method="paypal",
        captured=True,
        amount=1000,
        currency="USD",
        payment_service_transaction_id=CAPTURE_ID,
    )


def ingest():
    return settlements_ingest(sources=[PAYPAL.id])[PAYPAL.id]


def _window(exchange) -> tuple[datetime, datetime]:
    return tuple(datetime.fromisoformat(exchange.query[key]) for key in ("start_date", "end_date"))  # type: ignore[return-value]


def test_paypal_is_a_settlement_source():
    assert PAYPAL.id in settlement_sources()


def test_a_paypal_payment_shows_settled_with_paypals_fee_and_net(api_client, captured, paypal_api):
    refund = RefundFactory(transaction=captured, amount=250, payment_service_refund_id=REFUND_ID)
    paypal_api.answer(SEARCH, example="settled")

    [result] = ingest()

    assert (result.outcome, result.entries, result.unmatched) == (Outcome.INGESTED, 3, 1)
    payment = LedgerEntry.objects.get(entry_key=CAPTURE_ID)
    assert (payment.kind, payment.transaction_id, payment.processor_type) == (
        EntryKind.SETTLEMENT,
        captured.pk,
        "T0006",
    )
    assert (payment.amount, payment.commission, payment.net_amount, payment.currency) == (1000, 59, 941, "USD")
    assert payment.fee_details == [{"type": "paypal_fee", "amount": 59, "currency": "USD"}]
    refunded = LedgerEntry.objects.get(entry_key=REFUND_ID)
    assert (refunded.kind, refunded.refund_id, refunded.transaction_id) == (
        EntryKind.REFUND_SETTLEMENT,
        refund.pk,
        captured.pk,
    )
    assert (refunded.amount, refunded.commission, refunded.net_amount) == (250, -7, -243)
    client = api_client(scopes=["transactions.read"])
    read = client.get(f"/transactions/{captured.pk}").json()
    assert (read["settled"], read["settled_amount"], read["settled_currency"]) == (True, 941 - 243, "USD")
    [settlement] = client.get(f"/transactions/{captured.pk}/settlements").json()["items"]
    assert (settlement["amount"], settlement["commission"], settlement["currency"]) == (1000, 59, "USD")
    [request] = paypal_api.calls("GET", SEARCH)
    assert (request.query["fields"], request.headers["Authorization"].startswith("Bearer ")) == (
        "transaction_info",
        True,
    )


def test_a_line_that_is_not_ours_is_kept_and_listed_for_the_operator(paypal, paypal_api, merchant_account):
    paypal_api.answer(SEARCH, example="settled")

    ingest()

    assert {entry.entry_key for entry in unmatched_ledger_entries(merchant_account=merchant_account)} == {
        CAPTURE_ID,
        REFUND_ID,
        FOREIGN_ID,
    }
    foreign = LedgerEntry.objects.get(entry_key=FOREIGN_ID)
    assert (foreign.amount, foreign.commission, foreign.net_amount, foreign.transaction_id) == (400, 42, 358, None)


def test_the_same_records_twice_add_nothing(captured, paypal_api):
    paypal_api.answer(SEARCH, example="settled")
    ingest()
    first = list(LedgerEntry.objects.order_by("entry_key").values_list("pk", "entry_key"))

    again = ingest()

    assert [result.entries for result in again] == [0]
    assert list(LedgerEntry.objects.order_by("entry_key").values_list("pk", "entry_key")) == first
    assert captured.events.filter(name="settled").count() == 1


def test_every_page_of_a_window_is_read_in_order_and_a_whole_window_is_not_read_again(captured, paypal_api):
    paypal_api.answer(f"{SEARCH}?*page=1*", example="first")
    paypal_api.answer(f"{SEARCH}?*page=2*", example="second")

    results = ingest()

    assert [result.file.name.rsplit(" page ", 1)[1] for result in results] == ["1 of 2", "2 of 2"]
    assert [call.query["page"] for call in paypal_api.calls("GET", SEARCH)] == ["1", "2"]
    assert set(LedgerEntry.objects.values_list("entry_key", flat=True)) == {CAPTURE_ID, REFUND_ID}
    paypal_api.exchanges.clear()

    ingest()

    again = paypal_api.calls("GET", SEARCH)[0]  # the next window starts where the whole one ended
    assert again.query["start_date"] == results[-1].file.name.split("..")[1].split(" ")[0]


def test_a_window_cut_short_is_read_again_from_its_start(captured, paypal_api):
    """Page 2 of 2 failed: the next run reads the window from its start, and page 1 again adds nothing."""
    paypal_api.answer(f"{SEARCH}?*page=1*", example="first")
    paypal_api.answer(f"{SEARCH}?*page=2*", code=500)

    [first] = ingest()
    time.sleep(1.1)  # the next run's clock is on another second: it must still start where the first began

    assert first.file.name.endswith("page 1 of 2")
    [asked] = [call for call in paypal_api.calls("GET", SEARCH) if call.query["page"] == "1"]
    paypal_api.reset()
    paypal_api.answer(f"{SEARCH}?*page=1*", example="first")
    paypal_api.answer(f"{SEARCH}?*page=2*", example="second")

    again = ingest()

    assert [call.query["start_date"] for call in paypal_api.calls("GET", SEARCH)] == [asked.query["start_date"]] * 2
    assert [result.entries for result in again] == [0, 1]


def test_the_days_are_asked_in_windows_of_31_days_at_most_each_after_the_last(paypal, paypal_api, monkeypatch):
    monkeypatch.setattr(PAYPAL.settlements, "first_read", timedelta(days=70))
    paypal_api.answer(SEARCH, example="none")

    results = ingest()

    windows = [_window(call) for call in paypal_api.calls("GET", SEARCH)]
    assert len(windows) == len(results) == 3
    assert all(end - start <= timedelta(days=31) for start, end in windows)
    assert [start for start, _ in windows[1:]] == [end for _, end in windows[:-1]]
    assert windows[-1][1] - windows[0][0] >= timedelta(days=70) - timedelta(seconds=1)
    assert windows[-1][1] <= datetime.now(UTC)
    paypal_api.exchanges.clear()

    ingest()  # the whole windows are not asked again: only the days since the last one ended

    [next_window] = [_window(call) for call in paypal_api.calls("GET", SEARCH)]
    assert next_window[0] == windows[-1][1]


def test_a_window_ends_where_paypals_records_are_complete(paypal, paypal_api):
    """PayPal lists a transaction up to three hours late: what it says is complete bounds the window, and the next
    run starts there, not at the moment it was asked."""
    paypal_api.answer(SEARCH, example="lagging")

    [result] = ingest()

    [asked] = paypal_api.calls("GET", SEARCH)
    assert result.file.name.startswith(f"{asked.query['start_date']}..{asked.query['start_date']} ")
    paypal_api.exchanges.clear()
    ingest()
    [again] = paypal_api.calls("GET", SEARCH)
    assert again.query["start_date"] == asked.query["start_date"]


def test_paypal_refusing_or_not_answering_leaves_the_ledger_for_the_next_run(paypal, paypal_api):
    for code in (400, 500):
        paypal_api.answer(SEARCH, code=code)
        assert ingest() == []
    assert not LedgerEntry.objects.exists()
    assert not SettlementReportFile.objects.exists()


@pytest.mark.parametrize(
    "garbled",
    [
        b"[{",
        b'{"transaction_details": {}}',
        b'{"transaction_details": [{"transaction_info": {"transaction_id": "X"}}]}',
        b'{"transaction_details": [{"transaction_info": {"transaction_id": "X", "transaction_event_code": "T0006",'
        b' "transaction_initiation_date": "2026-01-05T10:00:00Z",'
        b' "transaction_amount": {"currency_code": "JPY", "value": "1.5"}}}]}',
        b'{"transaction_details": [{"transaction_info": {"transaction_id": "X", "transaction_event_code": "T0006",'
        b' "transaction_initiation_date": "2026-01-05T10:00:00Z",'
        b' "transaction_amount": {"currency_code": "USD", "value": "1.50"},'
        b' "fee_amount": {"currency_code": "EUR", "value": "-0.10"}}}]}',
    ],
    ids=["not-json", "not-a-list", "no-amount", "decimals", "fee-currency"],
)
def test_a_garbled_page_is_refused_naming_the_line(garbled):
    with pytest.raises(SettlementUnreadable):
        read_paypal_file(garbled)
