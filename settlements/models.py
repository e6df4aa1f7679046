"""The settlement ledger: each line of a processor's settlement records, the report and file it came in.

A processor publishes reports (Adyen's settlement details report of one batch, Stripe's balance history of one
account, the sandbox's day); a report arrives as files (a CSV, a page of balance transactions). A file is ingested
whole or not at all (`services.settlement_file_ingest`): its `LedgerEntry` rows commit together with its
`SettlementReportFile` row, and a file already ingested adds nothing. Only the services write these rows.
"""

import uuid

from django.db import models
from django.db.models import Q

from payments.accounts.models import MerchantAccount
from payments.json_column import JSONField
from payments.timestamped import TimestampedModel
from paymentservices.processors.settling import LineKind

# Who published the records: the id of the processor whose report an entry comes from (`Processor.id`, e.g.
# `stripe-card`), so a new processor needs no migration here.
SOURCE_MAX_LENGTH = 64


class EntryKind(models.TextChoices):
    """What a line is. The first four are upstream's record types (`Settlement`, `RefundSettlement`, `Chargeback`,
    `ChargebackReversal`) and belong to a payment; a fee or a payout belongs to the account."""

    # The seam's words (`LineKind`), which every processor's reader writes: one vocabulary, stored as it is.
    SETTLEMENT = LineKind.SETTLEMENT
    REFUND_SETTLEMENT = LineKind.REFUND_SETTLEMENT, "Refund settlement"
    CHARGEBACK = LineKind.CHARGEBACK
    CHARGEBACK_REVERSAL = LineKind.CHARGEBACK_REVERSAL, "Chargeback reversal"
    FEE = LineKind.FEE
    PAYOUT = LineKind.PAYOUT
    # Ours: money the merchant sent to a card (a payout of the payouts app), recorded when its processor confirmed it.
    CARD_PAYOUT = "card-payout", "Card payout"


# The kinds that name a payment: one of these that matches none of ours is listed for the operator.
PAYMENT_KINDS = (
    EntryKind.SETTLEMENT,
    EntryKind.REFUND_SETTLEMENT,
    EntryKind.CHARGEBACK,
    EntryKind.CHARGEBACK_REVERSAL,
)


class SettlementReport(TimestampedModel):
    """One report of a processor (upstream's `payment_service_report_id`), named as the processor names it."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.CASCADE, related_name="settlement_reports", db_index=False
    )
    payment_service = models.ForeignKey(
        "paymentservices.PaymentService", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source = models.CharField(max_length=SOURCE_MAX_LENGTH, help_text="The id of the processor that published it.")
    name = models.CharField(max_length=255, help_text="The processor's name for the report (a file name, a day).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["merchant_account", "source", "name"], name="settlement_report_unique")
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.name}"


class FileStatus(models.TextChoices):
    INGESTED = "ingested"
    REFUSED = "refused"


class SettlementReportFile(TimestampedModel):
    """One file of a report as it reached us: ingested whole, or refused with the reason (and nothing else kept).

    A file is known by its name within the report; ingested once (a unique key), so the same file twice, or two
    ingestions of it at once, add nothing. `digest` (SHA-256 of its bytes) tells a changed file from the same one.
    """

    Status = FileStatus

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    report = models.ForeignKey(SettlementReport, on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=255)
    digest = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=FileStatus.choices)
    entry_count = models.PositiveIntegerField(default=0)
    # Why a file was refused, for the operator (the line and what is wrong with it); empty when ingested.
    message = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["report", "name"],
                condition=Q(status=FileStatus.INGESTED),
                name="settlement_file_ingested_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"


class LedgerEntry(TimestampedModel):
    """One line of a processor's settlement records, in the processor's own figures.

    `amount` is the gross of the line in `currency` (a magnitude, as upstream shows it); `commission` is the
    processor's total fee for it and `interchange`, `markup` and `scheme_fee` its parts where the processor gives
    them (interchange++ pricing), all in `net_currency`; `net_amount` is what the line did to the merchant's
    balance (signed: a settlement credits, a refund or chargeback debits). `transaction` / `refund` are ours when
    the line matched one; a payment line that matched nothing is kept with neither and shown to the operator. A
    `card-payout` line names its `payout`.
    """

    Kind = EntryKind

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.CASCADE, related_name="ledger_entries", db_index=False
    )
    report = models.ForeignKey(SettlementReport, on_delete=models.CASCADE, related_name="entries")
    file = models.ForeignKey(SettlementReportFile, on_delete=models.CASCADE, related_name="entries")
    source = models.CharField(max_length=SOURCE_MAX_LENGTH, help_text="The id of the processor that published it.")
    # The processor's own key for the line (a balance transaction id; batch, reference and type for Adyen): a line
    # already in the ledger is never added again, whichever file repeats it.
    entry_key = models.CharField(max_length=255)
    kind = models.CharField(max_length=32, choices=EntryKind.choices)
    processor_type = models.CharField(max_length=64, help_text="The line's type as the processor wrote it.")
    processor_reference = models.CharField(max_length=255, blank=True, default="")
    # The refund's, chargeback's or reversal's own id at the processor, where the line is one.
    modification_reference = models.CharField(max_length=255, blank=True, default="")
    merchant_reference = models.CharField(max_length=255, blank=True, default="")
    transaction = models.ForeignKey(
        "transactions.Transaction",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_entries",
        db_index=False,
    )
    refund = models.ForeignKey(
        "transactions.Refund", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_entries"
    )
    # The payout to a card a `card-payout` line is (settlements.services.ledger_payout_record).
    payout = models.ForeignKey(
        "payouts.Payout", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_entries"
    )
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    commission = models.BigIntegerField(default=0)
    interchange = models.BigIntegerField(null=True, blank=True)
    markup = models.BigIntegerField(null=True, blank=True)
    scheme_fee = models.BigIntegerField(null=True, blank=True)
    # The fee's parts as the processor itemizes them: [{"type", "amount", "currency", "description"}].
    fee_details = JSONField(default=list, blank=True)
    net_amount = models.BigIntegerField()
    net_currency = models.CharField(max_length=3)
    exchange_rate = models.DecimalField(max_digits=20, decimal_places=10, null=True, blank=True)
    posted_at = models.DateTimeField()
    available_on = models.DateField(null=True, blank=True)
    # The payout that paid (or will pay) the line: Stripe's payout id, Adyen's batch number.
    payout_reference = models.CharField(max_length=255, blank=True, default="")
    # Why the line does not agree with our transaction (its settlements grosser than what we captured), for the
    # operator; empty when it agrees. The line is kept as the processor wrote it either way.
    mismatch = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        # Named apart from the gift card ledger's entries: the desk's start page lists both.
        verbose_name = "settlement ledger entry"
        verbose_name_plural = "settlement ledger entries"
        constraints = [
            models.UniqueConstraint(fields=["merchant_account", "source", "entry_key"], name="ledger_entry_once"),
            models.CheckConstraint(condition=Q(kind__in=EntryKind.values), name="ledger_entry_kind_valid"),
        ]
        indexes = [
            models.Index(fields=["transaction", "kind", "posted_at"], name="ledger_entry_transaction"),
            models.Index(fields=["merchant_account", "posted_at", "id"], name="ledger_entry_posted"),
            models.Index(
                fields=["merchant_account", "-created_at"],
                name="ledger_entry_unmatched",
                condition=Q(transaction__isnull=True, kind__in=PAYMENT_KINDS),
            ),
            models.Index(fields=["merchant_account", "payout_reference"], name="ledger_entry_payout"),
            models.Index(fields=["-created_at"], name="ledger_entry_mismatch", condition=~Q(mismatch="")),
            # The desk's list (newest posted first, every account) and its search, exact on each reference
            # (settlements.admin.LedgerEntryAdmin); a payout id is also found without its account.
            models.Index(fields=["-posted_at", "-id"], name="ledger_entry_desk_page"),
            models.Index(fields=["processor_reference"], name="ledger_entry_processor_ref"),
            models.Index(fields=["modification_reference"], name="ledger_entry_modification_ref"),
            models.Index(fields=["merchant_reference"], name="ledger_entry_merchant_ref"),
            models.Index(fields=["payout_reference"], name="ledger_entry_payout_ref"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.processor_reference or self.entry_key}"

    @property
    def ingested_at(self):
        return self.created_at


class ProcessorPayout(TimestampedModel):
    """One payout of a processor to the merchant's bank in one currency (Stripe's payout, Adyen's batch, the sandbox's
    day), summed from the ledger lines that name it (`payout_reference`): kept by the ingestion in the transaction
    that writes or names its lines (`services.settlement_file_ingest`), so the desk lists payouts without adding up
    the ledger.

    In `currency` (the lines' net currency): `net` is what the payment and fee lines did to the balance, and so what
    the payout should pay; `fees` the processor's commissions plus its fee lines; `gross` is `net + fees`;
    `paid_out` what the processor's own payout line says it paid, None while the ledger holds none (the sandbox
    writes none, a Stripe payout's line may come after the lines it pays).
    """

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.CASCADE, related_name="processor_payouts", db_index=False
    )
    source = models.CharField(max_length=SOURCE_MAX_LENGTH, help_text="The id of the processor that pays it.")
    reference = models.CharField(max_length=255, help_text="The processor's payout id or batch number.")
    currency = models.CharField(max_length=3)
    gross = models.BigIntegerField(default=0)
    fees = models.BigIntegerField(default=0)
    net = models.BigIntegerField(default=0)
    paid_out = models.BigIntegerField(null=True, blank=True)
    line_count = models.PositiveIntegerField("lines", default=0)
    posted_at = models.DateTimeField("date", null=True, blank=True, help_text="When its last line was posted.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["merchant_account", "source", "reference", "currency"], name="processor_payout_once"
            )
        ]
        # The desk's list: the newest payout first, every account.
        indexes = [
            models.Index(fields=["-posted_at", "-id"], name="processor_payout_desk_page"),
            models.Index(fields=["reference"], name="processor_payout_reference"),
        ]

    def __str__(self) -> str:
        return f"{self.reference} ({self.currency})"


class FetchStatus(models.TextChoices):
    PENDING = "pending"  # announced; the fetch is queued (or failed and waits for the next attempt)
    FETCHED = "fetched"  # downloaded and handed to the ingestion (its file row says how that went)
    REFUSED = "refused"  # never fetched: the URL is not the processor's report host


class ReportFetch(TimestampedModel):
    """A report a processor announced (Adyen's REPORT_AVAILABLE), kept from the notification until its file is
    downloaded and ingested: a failed download stays `pending` with the reason and is tried again by the job, so no
    announced report is lost. `url` is kept only once it passed the processor's report host check."""

    Status = FetchStatus

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.CASCADE, related_name="report_fetches")
    payment_service = models.ForeignKey(
        "paymentservices.PaymentService", on_delete=models.CASCADE, related_name="report_fetches", db_index=False
    )
    source = models.CharField(max_length=SOURCE_MAX_LENGTH, help_text="The id of the processor that published it.")
    name = models.CharField(max_length=255, help_text="The report's file name as the processor gave it.")
    url = models.URLField("URL", max_length=2000, blank=True, default="")
    status = models.CharField(max_length=16, choices=FetchStatus.choices, default=FetchStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # Why the last attempt failed (or why the report is refused), for the operator; empty once fetched.
    message = models.TextField(blank=True, default="")

    class Meta:
        verbose_name = "settlement report download"
        constraints = [
            models.UniqueConstraint(fields=["payment_service", "name"], name="report_fetch_once"),
        ]
        indexes = [models.Index(fields=["status", "updated_at"], name="report_fetch_status")]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"
