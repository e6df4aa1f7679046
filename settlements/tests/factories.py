import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from payments.tests.factories import MerchantAccountFactory
from settlements.models import (
    EntryKind,
    FileStatus,
    LedgerEntry,
    ProcessorPayout,
    SettlementReport,
    SettlementReportFile,
)
from transactions.tests.factories import TransactionFactory


class SettlementReportFactory(DjangoModelFactory[SettlementReport]):
    class Meta:
        model = SettlementReport

    source = "mock-card"
    name = factory.Sequence(lambda n: f"2026-03-{n % 28 + 1:02d}-{n}")


class SettlementReportFileFactory(DjangoModelFactory[SettlementReportFile]):
    class Meta:
        model = SettlementReportFile

    report = factory.SubFactory(SettlementReportFactory)
    name = factory.Sequence(lambda n: f"settlement-{n}.json")
    digest = "0" * 64
    status = FileStatus.INGESTED


class LedgerEntryFactory(DjangoModelFactory[LedgerEntry]):
    """A settlement line of a captured transaction, as the sandbox prices it (2.9% + 30)."""

    class Meta:
        model = LedgerEntry

    transaction = factory.SubFactory(TransactionFactory, captured=True, amount=10000)
    merchant_account = factory.SelfAttribute("transaction.merchant_account")
    file = factory.SubFactory(
        SettlementReportFileFactory, report__merchant_account=factory.SelfAttribute("...merchant_account")
    )
    report = factory.SelfAttribute("file.report")
    source = "mock-card"
    entry_key = factory.Sequence(lambda n: f"line-{n}")
    kind = EntryKind.SETTLEMENT
    processor_type = "capture"
    amount = 10000
    currency = "USD"
    commission = 320
    interchange = 150
    scheme_fee = 20
    markup = 150
    net_amount = 9680
    net_currency = "USD"
    posted_at = factory.LazyFunction(timezone.now)


class ProcessorPayoutFactory(DjangoModelFactory[ProcessorPayout]):
    """A sandbox day's payout of three settled payments (USD 300.00 gross, 3 x 3.20 fees)."""

    class Meta:
        model = ProcessorPayout

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    source = "mock-card"
    reference = factory.Sequence(lambda n: f"sandbox-payout-2026-03-{n % 28 + 1:02d}-{n}")
    currency = "USD"
    gross = 30000
    fees = 960
    net = 29040
    line_count = 3
    posted_at = factory.LazyFunction(timezone.now)
