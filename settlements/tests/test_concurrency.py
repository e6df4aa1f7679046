"""Two ingestions of the same file at once, on PostgreSQL: the unique key on the file decides, not luck."""

import pytest

from payments.tests.races import at_once, meeting
from paymentservices.processors.sandbox import read_sandbox_report
from settlements.models import LedgerEntry, SettlementReportFile
from settlements.services import Outcome, SettlementFile, settlement_file_ingest
from settlements.tests.test_ingestion import capture_line, sandbox_file
from transactions.tests.factories import TransactionFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_ingestions_of_one_file_at_once_record_it_once(merchant_account):
    txns = [TransactionFactory(merchant_account=merchant_account, captured=True, amount=10000) for _ in range(5)]
    published = sandbox_file([capture_line(txn) for txn in txns])
    both_read = meeting(2)

    def read(content: bytes):
        entries = read_sandbox_report(content)
        both_read()  # both have the file in hand before either writes
        return entries

    file = SettlementFile(published.source, published.report_name, published.name, published.content, read)

    def ingest() -> str:
        return settlement_file_ingest(merchant_account=merchant_account, payment_service=None, file=file).outcome

    outcomes = at_once([ingest, ingest])

    assert sorted(outcomes) == [Outcome.ALREADY_INGESTED, Outcome.INGESTED]
    assert LedgerEntry.objects.count() == 5
    assert SettlementReportFile.objects.count() == 1
    for txn in txns:
        txn.refresh_from_db()
        assert (txn.settled_amount, txn.events.filter(name="settled").count()) == (9680, 1)
