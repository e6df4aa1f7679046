"""The support desk: unmatched lines and refused files on the start page, the ledger's list, the transaction's page."""

import pytest

from settlements.models import EntryKind
from settlements.tests.factories import LedgerEntryFactory, SettlementReportFileFactory


def test_the_start_page_lists_unmatched_lines_and_refused_files(support_client, merchant_account):
    LedgerEntryFactory(transaction=None, merchant_account=merchant_account, processor_reference="psp-stranger")
    LedgerEntryFactory(
        transaction=None, merchant_account=merchant_account, kind=EntryKind.FEE, processor_reference="fee-1"
    )
    LedgerEntryFactory(
        transaction=None, merchant_account=merchant_account, kind=EntryKind.REFUND_SETTLEMENT, net_amount=-10000
    )
    SettlementReportFileFactory(
        report__merchant_account=merchant_account, status="refused", name="batch_7.csv", message="Line 3: no amount."
    )

    page = support_client.get("/admin/").content.decode()

    assert "Unmatched settlement lines" in page
    assert "psp-stranger" in page
    assert "Refund settlement USD 100.00" in page  # the kind in words, not its stored slug
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


@pytest.mark.parametrize(
    "field", ["processor_reference", "modification_reference", "merchant_reference", "payout_reference"]
)
def test_the_ledger_search_finds_a_reference_exactly(support_client, merchant_account, field):
    wanted = LedgerEntryFactory(merchant_account=merchant_account, **{field: "po_1AbC"})
    LedgerEntryFactory(merchant_account=merchant_account, **{field: "po_1AbCd"})

    def found(term: str) -> set:
        response = support_client.get("/admin/settlements/ledgerentry/", {"q": term})
        return {entry.pk for entry in response.context["cl"].result_list}

    assert found(" po_1AbC ") == {wanted.pk}
    assert found("po_1abc") == set()  # a processor's id is case-sensitive: an index serves only the exact value
    assert found("po_1A") == set()


def test_the_ledger_list_costs_a_fixed_number_of_queries(support_client, merchant_account, django_assert_num_queries):
    LedgerEntryFactory.create_batch(3, merchant_account=merchant_account)
    support_client.get("/admin/settlements/ledgerentry/")
    # session, user, user and group permissions, the recent processors, merchant accounts, capped count, page (with
    # each line's transaction)
    with django_assert_num_queries(8) as few:
        support_client.get("/admin/settlements/ledgerentry/", {"q": "po_1", "p": "1"})
    LedgerEntryFactory.create_batch(10, merchant_account=merchant_account, payout_reference="po_1")
    with django_assert_num_queries(len(few.captured_queries)):
        response = support_client.get("/admin/settlements/ledgerentry/", {"q": "po_1", "p": "1"})
    assert len(response.context["cl"].result_list) == 10
