"""The support desk: unmatched lines and refused files on the start page, the ledger's list, the transaction's page."""

from settlements.models import EntryKind
from settlements.tests.factories import LedgerEntryFactory, SettlementReportFileFactory


def test_the_start_page_lists_unmatched_lines_and_refused_files(support_client, merchant_account):
    LedgerEntryFactory(transaction=None, merchant_account=merchant_account, processor_reference="psp-stranger")
    LedgerEntryFactory(
        transaction=None, merchant_account=merchant_account, kind=EntryKind.FEE, processor_reference="fee-1"
    )
    SettlementReportFileFactory(
        report__merchant_account=merchant_account, status="refused", name="batch_7.csv", message="Line 3: no amount."
    )

    page = support_client.get("/admin/").content.decode()

    assert "Unmatched settlement lines" in page
    assert "psp-stranger" in page
    assert "fee-1" not in page  # a fee belongs to no payment: nothing to match
    assert "batch_7.csv: Line 3: no amount." in page


def test_the_unmatched_filter_lists_only_payment_lines_without_a_transaction(support_client, merchant_account):
    LedgerEntryFactory(transaction=None, merchant_account=merchant_account, processor_reference="psp-stranger")
    LedgerEntryFactory(processor_reference="psp-ours")

    page = support_client.get("/admin/settlements/ledgerentry/?matched=no").content.decode()

    assert "psp-stranger" in page
    assert "psp-ours" not in page


def test_the_transaction_page_shows_the_settled_net_and_links_its_lines(support_client, merchant_account):
    entry = LedgerEntryFactory()
    txn = entry.transaction
    txn.settled_at, txn.settled_amount, txn.settled_currency = entry.posted_at, 9680, "USD"
    txn.save()

    page = support_client.get(f"/admin/transactions/transaction/{txn.pk}/change/").content.decode()
    lines = support_client.get(f"/admin/settlements/ledgerentry/?transaction__id__exact={txn.pk}").content.decode()

    assert "96.80" in page
    assert f"transaction__id__exact={txn.pk}" in page
    for figure in ("100.00", "3.20", "96.80"):  # gross, fees, net
        assert figure in lines
