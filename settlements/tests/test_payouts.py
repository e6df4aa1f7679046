"""Processor payouts: each payout the ledger's lines name, summed by the ingestion, and the desk's list of them."""

import importlib
import json
from datetime import UTC, datetime
from urllib.parse import parse_qsl, urlparse

import pytest
from django.urls import reverse

from payments.tests.races import at_once, meeting
from paymentservices.processors.settling import SettledLine
from settlements import services
from settlements.models import EntryKind, LedgerEntry, ProcessorPayout
from settlements.services import SettlementFile, settlement_file_ingest
from settlements.tests.factories import LedgerEntryFactory, ProcessorPayoutFactory
from settlements.tests.test_ingestion import capture_line, ingest, sandbox_file
from transactions.tests.factories import RefundFactory, TransactionFactory

POSTED = datetime(2026, 3, 3, tzinfo=UTC)


def line(key: str, kind: str = EntryKind.SETTLEMENT, *, amount=10000, commission=320, net=9680, payout="po_1"):
    return SettledLine(
        entry_key=key,
        kind=kind,
        processor_type=kind,
        amount=amount,
        currency="USD",
        net_amount=net,
        net_currency="USD",
        posted_at=POSTED,
        commission=commission,
        payout_reference=payout,
    )


def stripe_file(name: str, lines: list[SettledLine]) -> SettlementFile:
    """A file read into the given lines, as Stripe's pages and payouts are."""
    return SettlementFile("stripe-card", "balance history", name, json.dumps(name).encode(), lambda _: lines)


@pytest.mark.django_db
def test_a_sandbox_day_is_one_payout_of_its_lines(merchant_account):
    paid = [TransactionFactory(merchant_account=merchant_account, captured=True, amount=10000) for _ in range(2)]
    refund = RefundFactory(transaction=paid[0], amount=2500)
    refunded = {
        "operation": "refund",
        "reference": str(refund.pk),
        "processor_reference": "sandbox-refund-1",
        "amount": 2500,
        "currency": paid[0].currency,
    }

    ingest(merchant_account, sandbox_file([capture_line(paid[0]), capture_line(paid[1]), refunded]))

    payout = ProcessorPayout.objects.get()
    assert (payout.source, payout.reference, payout.currency) == ("mock-card", "sandbox-payout-2026-03-03", "USD")
    # Two settlements of 100.00 at 2.9% + 0.30 each, less a refund of 25.00 (no fee).
    assert (payout.gross, payout.fees, payout.net, payout.line_count) == (17500, 640, 16860, 3)
    assert payout.paid_out is None  # the sandbox writes no payout line


@pytest.mark.django_db
def test_a_payout_named_after_its_lines_sums_them_with_its_own_line_and_fee_lines(merchant_account):
    ingest_file = lambda name, lines: settlement_file_ingest(  # noqa: E731 - one call, named for the steps below
        merchant_account=merchant_account, payment_service=None, file=stripe_file(name, lines)
    )
    ingest_file("page 1", [line("txn_1", payout=""), line("txn_2", payout="")])
    assert not ProcessorPayout.objects.exists()  # no line names a payout yet

    ingest_file(
        "payout po_1",
        [
            line("txn_1"),
            line("txn_2"),
            line("txn_fee", EntryKind.FEE, amount=500, commission=0, net=-500),
            line("txn_po", EntryKind.PAYOUT, amount=18860, commission=0, net=-18860),
        ],
    )

    payout = ProcessorPayout.objects.get()
    assert (payout.gross, payout.fees, payout.net, payout.paid_out, payout.line_count) == (
        20000,
        640 + 500,
        18860,
        18860,
        4,
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_files_of_one_payout_ingested_at_once_are_both_summed(merchant_account, monkeypatch):
    first = settlement_file_ingest(
        merchant_account=merchant_account, payment_service=None, file=stripe_file("page 1", [line("txn_1")])
    )
    assert first.outcome == services.Outcome.INGESTED
    both_written = meeting(2)
    summed = services._sum_payouts

    def sum_once_both_wrote(*args):
        both_written()  # each has written its lines, not committed them, before either sums
        summed(*args)

    monkeypatch.setattr(services, "_sum_payouts", sum_once_both_wrote)

    def ingest_page(number: int):
        page = stripe_file(f"page {number}", [line(f"txn_{number}")])
        return settlement_file_ingest(merchant_account=merchant_account, payment_service=None, file=page).outcome

    assert at_once([lambda: ingest_page(2), lambda: ingest_page(3)]) == [services.Outcome.INGESTED] * 2
    payout = ProcessorPayout.objects.get()
    assert (payout.line_count, payout.net) == (3, 3 * 9680)


@pytest.mark.django_db
def test_the_desk_lists_payouts_and_links_each_to_its_lines(support_client, merchant_account):
    for number in (1, 2):
        LedgerEntryFactory(merchant_account=merchant_account, payout_reference="po_1", entry_key=f"a{number}")
    LedgerEntryFactory(merchant_account=merchant_account, payout_reference="po_2", entry_key="b1")
    payout = ProcessorPayoutFactory(merchant_account=merchant_account, reference="po_1", line_count=2)
    ProcessorPayoutFactory(merchant_account=merchant_account, reference="po_2", line_count=1)

    response = support_client.get(reverse("admin:settlements_processorpayout_changelist"))
    page = response.content.decode()

    assert {row.reference for row in response.context["cl"].result_list} == {"po_1", "po_2"}
    for figure in ("USD 300.00", "USD 9.60", "USD 290.40", "Mock card (sandbox)"):
        assert figure in page
    link = next(a for a in response.context["cl"].result_list if a == payout)
    url = response.context["cl"].model_admin.lines(link)
    href = urlparse(url.split('"')[1].replace("&amp;", "&"))
    lines = support_client.get(href.path, dict(parse_qsl(href.query)))
    assert lines.status_code == 200
    assert {entry.entry_key for entry in lines.context["cl"].result_list} == {"a1", "a2"}


@pytest.mark.django_db
def test_the_desk_finds_a_payout_by_its_reference_exactly(support_client, merchant_account):
    ProcessorPayoutFactory(merchant_account=merchant_account, reference="po_1AbC")
    ProcessorPayoutFactory(merchant_account=merchant_account, reference="po_1AbCd")

    def found(term: str) -> set[str]:
        response = support_client.get(reverse("admin:settlements_processorpayout_changelist"), {"q": term})
        return {payout.reference for payout in response.context["cl"].result_list}

    assert found(" po_1AbC ") == {"po_1AbC"}
    assert found("po_1A") == set()


@pytest.mark.django_db
def test_the_payout_list_costs_a_fixed_number_of_queries(support_client, merchant_account, django_assert_num_queries):
    ProcessorPayoutFactory(merchant_account=merchant_account)
    url = reverse("admin:settlements_processorpayout_changelist")
    support_client.get(url)
    # session, user, user and group permissions, the recent processors, merchant accounts, capped count, page
    with django_assert_num_queries(8) as few:
        support_client.get(url)
    ProcessorPayoutFactory.create_batch(10, merchant_account=merchant_account)
    with django_assert_num_queries(len(few.captured_queries)):
        response = support_client.get(url)
    assert len(response.context["cl"].result_list) == 11
    assert LedgerEntry.objects.count() == 0


@pytest.mark.django_db
def test_the_migration_sums_the_payouts_of_lines_already_in_the_ledger(merchant_account):
    from django.apps import apps

    migration = importlib.import_module("settlements.migrations.0009_processor_payouts")
    for number in (1, 2):
        LedgerEntryFactory(merchant_account=merchant_account, payout_reference="po_1", entry_key=f"a{number}")
    LedgerEntryFactory(merchant_account=merchant_account, entry_key="unpaid")

    migration.sum_existing_payouts(apps, None)

    payout = ProcessorPayout.objects.get()
    summed = (payout.reference, payout.gross, payout.fees, payout.net, payout.line_count)
    assert summed == ("po_1", 20000, 640, 19360, 2)
