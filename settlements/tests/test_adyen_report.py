"""Adyen's settlement details report: read by its documented columns, ingested whole and once, refused whole."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from paymentservices.processors import adyen
from settlements.models import LedgerEntry, SettlementReportFile
from settlements.services import Outcome
from settlements.sources.announced import settlements_report_ingest
from settlements.tests.conftest import PSP
from transactions.tests.factories import RefundFactory

HEADER = (
    "Company Account,Merchant Account,Psp Reference,Merchant Reference,Payment Method,Creation Date,TimeZone,Type,"
    "Modification Reference,Gross Currency,Gross Debit (GC),Gross Credit (GC),Exchange Rate,Net Currency,"
    "Net Debit (NC),Net Credit (NC),Commission (NC),Markup (NC),Scheme Fees (NC),Interchange (NC),"
    "Payment Method Variant,Modification Merchant Reference,Batch Number"
)
NAME = "settlement_detail_report_batch_42.csv"


def report(*lines: str) -> bytes:
    return "\n".join([HEADER, *lines, ""]).encode()


def settled_line(psp: str, reference: str = "order-1", **cells) -> str:
    values = {
        "psp": psp,
        "ref": reference,
        "type": "Settled",
        "mod": "",
        "gross_credit": "100.00",
        "gross_debit": "",
        "net_credit": "97.62",
        "net_debit": "",
        "commission": "2.38",
        "rate": "1",
        "date": "2026-03-02 10:15:00",
        "gross_currency": "EUR",
        "net_currency": "EUR",
        "batch": "42",
        **cells,
    }
    return (
        f"Co,ShopEU,{values['psp']},{values['ref']},visa,{values['date']},UTC,{values['type']},{values['mod']},"
        f"{values['gross_currency']},{values['gross_debit']},{values['gross_credit']},{values['rate']},"
        f"{values['net_currency']},{values['net_debit']},{values['net_credit']},{values['commission']},0.40,0.18,1.80,"
        f"visa,,{values['batch']}"
    )


def ingest(account, content: bytes, name: str = NAME):
    return settlements_report_ingest(
        processor=adyen.PROCESSOR, merchant_account=account, payment_service=None, file_name=name, content=content
    )


def test_a_settled_line_settles_its_payment_with_adyens_fee_and_net(merchant_account, paid):
    refund = RefundFactory(transaction=paid, amount=1000, currency="EUR", payment_service_refund_id="REF0000000000001")
    content = report(
        settled_line("ABCDEF0123456789"),
        settled_line(
            "ABCDEF0123456789",
            type="Refunded",
            mod="REF0000000000001",
            gross_credit="",
            gross_debit="10.00",
            net_credit="",
            net_debit="10.00",
            commission="",
        ),
        settled_line("ZZZZZZ0000000000", reference="not-ours"),
        "Co,ShopEU,,,,2026-03-02 23:00:00,UTC,MerchantPayout,,EUR,,,,EUR,85.24,,,,,,,,42",
    )

    result = ingest(merchant_account, content)

    assert (result.outcome, result.entries, result.unmatched) == (Outcome.INGESTED, 4, 1)
    settled = LedgerEntry.objects.get(kind="settlement", transaction=paid)
    assert (settled.amount, settled.commission, settled.markup, settled.scheme_fee, settled.interchange) == (
        10000,
        238,
        40,
        18,
        180,
    )
    assert (settled.net_amount, settled.posted_at, settled.payout_reference) == (
        9762,
        datetime(2026, 3, 2, 10, 15, tzinfo=UTC),
        "42",
    )
    paid.refresh_from_db()
    refund.refresh_from_db()
    assert (paid.settled, paid.settled_amount, paid.settled_currency) == (True, 9762 - 1000, "EUR")
    assert (refund.settled, refund.settled_amount) == (True, 1000)
    assert LedgerEntry.objects.get(kind="payout").net_amount == -8524


def test_the_same_report_twice_changes_nothing(merchant_account, paid):
    ingest(merchant_account, report(settled_line("ABCDEF0123456789")))

    again = ingest(merchant_account, report(settled_line("ABCDEF0123456789")))

    assert again.outcome == Outcome.ALREADY_INGESTED
    assert LedgerEntry.objects.count() == 1
    assert paid.events.filter(name="settled").count() == 1


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (report(settled_line("ABCDEF0123456789"), "Co,ShopEU,XYZ,order-2,visa,2026-03-02"), "Line 3"),
        (report(settled_line("ABCDEF0123456789", gross_credit="1O0.00")), "`Gross Credit (GC)` is not an amount"),
        (report(settled_line("ABCDEF0123456789", gross_credit="100.001")), "`Gross Credit (GC)` is not an amount"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"Psp Reference,Type\nX,Settled\n", "lacks the column"),
        (HEADER.encode() + b"\n", "no lines"),
    ],
    ids=["truncated", "letter-in-amount", "too-many-decimals", "binary", "wrong-columns", "empty"],
)
def test_a_garbled_report_changes_nothing_and_says_why(merchant_account, paid, content, says):
    result = ingest(merchant_account, content)

    assert result.outcome == Outcome.REFUSED
    assert says in result.message
    assert LedgerEntry.objects.count() == 0
    assert SettlementReportFile.objects.get().status == "refused"
    paid.refresh_from_db()
    assert not paid.settled


ARABIC_INDIC = "\u0661\u0660\u0660.\u0660\u0660"  # 100.00 in Arabic-Indic digits


@pytest.mark.parametrize(
    ("cells", "column"),
    [
        ({"gross_credit": "1E+999999999"}, "Gross Credit (GC)"),
        ({"gross_credit": "1E+900000"}, "Gross Credit (GC)"),
        ({"gross_credit": "9" * 25}, "Gross Credit (GC)"),
        ({"gross_credit": "1" + "0" * 17}, "Gross Credit (GC)"),
        ({"gross_credit": ARABIC_INDIC}, "Gross Credit (GC)"),
        ({"gross_credit": "-100.00"}, "Gross Credit (GC)"),
        ({"gross_credit": "", "gross_debit": "-100.00"}, "Gross Debit (GC)"),
        ({"net_credit": "9" * 25}, "Net Credit (NC)"),
        ({"commission": "1E+9"}, "Commission (NC)"),
        ({"rate": "1E+999999"}, "Exchange Rate"),
        ({"rate": "99999999999"}, "Exchange Rate"),
        ({"rate": "\u0661"}, "Exchange Rate"),
        ({"rate": "0.00000000001"}, "Exchange Rate"),
        ({"rate": "9999999999.99999999999"}, "Exchange Rate"),
        ({"ref": "order\x00-1"}, "Merchant Reference"),
        ({"ref": "order\u202e-1"}, "Merchant Reference"),
        ({"ref": "o" * 256}, "Merchant Reference"),
        ({"psp": "A" * 5000}, "Psp Reference"),
        ({"mod": "M" * 5000}, "Modification Reference"),
        ({"type": "Settled" * 100}, "Type"),
        ({"batch": "4" * 300}, "Batch Number"),
        ({"gross_currency": "XYZ"}, "Gross Currency"),
        ({"net_currency": "ABC"}, "Net Currency"),
        ({"date": "\u0662\u0660\u0662\u0666-03-02 10:15:00"}, "Creation Date"),
    ],
    ids=[
        "gross-exponent-overflow",
        "gross-huge-exponent",
        "gross-25-nines",
        "gross-beyond-the-ledger",
        "gross-arabic-indic-digits",
        "gross-credit-negative-on-settled",
        "gross-debit-negative",
        "net-25-nines",
        "commission-exponent",
        "rate-exponent",
        "rate-too-large",
        "rate-arabic-indic-digit",
        "rate-rounds-to-zero",
        "rate-rounds-to-the-bound",
        "merchant-reference-nul",
        "merchant-reference-bidi-override",
        "merchant-reference-too-long",
        "psp-reference-5000",
        "modification-reference-5000",
        "type-too-long",
        "batch-too-long",
        "gross-currency-not-iso",
        "net-currency-not-iso",
        "date-arabic-indic-digits",
    ],
)
def test_a_garbled_cell_refuses_the_file_naming_its_line_and_column(merchant_account, paid, cells, column):
    content = report(settled_line(PSP), settled_line(**{"psp": "ZZZZZZ0000000000", "reference": "order-2", **cells}))

    result = ingest(merchant_account, content)

    assert result.outcome == Outcome.REFUSED
    assert f"Line 3 of the Adyen report: `{column}`" in result.message
    refused = SettlementReportFile.objects.get()
    assert (refused.status, refused.message) == ("refused", result.message)
    assert LedgerEntry.objects.count() == 0
    paid.refresh_from_db()
    assert not paid.settled


def test_a_rate_with_more_decimals_than_the_ledger_keeps_is_rounded_to_ten(merchant_account, paid):
    ingest(merchant_account, report(settled_line(PSP, rate="1.123456789012345")))

    assert LedgerEntry.objects.get().exchange_rate == Decimal("1.1234567890")
