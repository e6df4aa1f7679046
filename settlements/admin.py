"""The ledger on the support desk: every line with its fees, net and payout, the unmatched ones to look into, and
the report files (a refused one with why). Read-only: only ingestion writes the ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode

from payments.money import format_money
from payments.staff.filters import recent_values_filter
from payments.staff.mixins import ReadOnlyAdminMixin
from payments.staff.pagination import CappedCountPaginator
from paymentservices.models import processor_name
from settlements.models import PAYMENT_KINDS, LedgerEntry, ProcessorPayout, ReportFetch, SettlementReportFile

if TYPE_CHECKING:
    LedgerEntryAdminBase = admin.ModelAdmin[LedgerEntry]
    ReportFileAdminBase = admin.ModelAdmin[SettlementReportFile]
    ReportFetchAdminBase = admin.ModelAdmin[ReportFetch]
    ProcessorPayoutAdminBase = admin.ModelAdmin[ProcessorPayout]
else:
    LedgerEntryAdminBase = ReportFileAdminBase = ReportFetchAdminBase = ProcessorPayoutAdminBase = admin.ModelAdmin


class MatchedFilter(admin.SimpleListFilter):
    """Payment lines that matched none of our transactions, and lines that do not match their transaction (settled
    grosser than captured): the operator's to-do list."""

    title = "matched"
    parameter_name = "matched"

    def lookups(self, request, model_admin):
        return [("no", "Unmatched payment lines"), ("yes", "Matched"), ("mismatch", "Not as captured")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[LedgerEntry]) -> QuerySet[LedgerEntry]:
        if self.value() == "mismatch":
            return queryset.exclude(mismatch="")
        if self.value() == "no":
            return queryset.filter(transaction__isnull=True, kind__in=PAYMENT_KINDS)
        if self.value() == "yes":
            return queryset.filter(transaction__isnull=False)
        return queryset


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdminMixin, LedgerEntryAdminBase):
    list_display = (
        "posted_at",
        "kind",
        "transaction_link",
        "processor_reference",
        "gross",
        "fees",
        "net",
        "payout_reference",
        "processor",
    )
    list_filter = (
        MatchedFilter,
        "kind",
        recent_values_filter("source", "processor", label=processor_name),
        "merchant_account",
    )
    search_fields = ("processor_reference",)  # shows the box; the lookups are exact, below
    search_help_text = "A processor's reference, a refund's or chargeback's, our merchant reference or a payout id."
    list_select_related = ("transaction",)
    ordering = ("-posted_at", "-id")
    paginator = CappedCountPaginator
    show_full_result_count = False
    fields = (
        "id",
        "merchant_account",
        "kind",
        "processor_type",
        "transaction_link",
        "mismatch",
        "refund",
        "payout",
        "processor_reference",
        "modification_reference",
        "merchant_reference",
        "gross",
        "fees",
        "interchange",
        "scheme_fee",
        "markup",
        "fee_details",
        "net",
        "exchange_rate",
        "posted_at",
        "available_on",
        "payout_reference",
        "source",
        "report",
        "file",
        "entry_key",
        "created_at",
    )
    readonly_fields = fields

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[LedgerEntry], search_term: str
    ) -> tuple[QuerySet[LedgerEntry], bool]:
        """Exact matches on indexed columns (processors' references are case-sensitive ids): Django's `=` search
        compares upper-cased copies, which no index serves, and read every line of the ledger."""
        term = search_term.strip()
        if not term:
            return queryset, False
        matches = (
            Q(processor_reference=term)
            | Q(modification_reference=term)
            | Q(merchant_reference=term)
            | Q(payout_reference=term)
        )
        return queryset.filter(matches), False

    @admin.display(description="Transaction")
    def transaction_link(self, entry: LedgerEntry) -> str:
        if entry.transaction_id is None:
            return "Unmatched" if entry.kind in PAYMENT_KINDS else "-"
        url = reverse("admin:transactions_transaction_change", args=[entry.transaction_id])
        if entry.mismatch:  # the line's own row says it, where the operator reconciles a payout
            return format_html('<a href="{}">{}</a> (not as captured)', url, str(entry.transaction_id).split("-")[0])
        return format_html('<a href="{}">{}</a>', url, str(entry.transaction_id).split("-")[0])

    @admin.display(description="Processor", ordering="source")
    def processor(self, entry: LedgerEntry) -> str:
        return processor_name(entry.source)

    @admin.display(description="Gross", ordering="amount")
    def gross(self, entry: LedgerEntry) -> str:
        return format_money(entry.amount, entry.currency)

    @admin.display(description="Fees", ordering="commission")
    def fees(self, entry: LedgerEntry) -> str:
        return format_money(entry.commission, entry.net_currency)

    @admin.display(description="Net", ordering="net_amount")
    def net(self, entry: LedgerEntry) -> str:
        return format_money(entry.net_amount, entry.net_currency)


@admin.register(ProcessorPayout)
class ProcessorPayoutAdmin(ReadOnlyAdminMixin, ProcessorPayoutAdminBase):
    """One line per payout a processor made to the merchant's bank, with its totals and a link to the ledger lines it
    paid: the bank statement's line, reconciled (docs/reconciliation.md). Read-only: the ingestion sums them."""

    list_display = ("posted_at", "processor", "reference", "gross_amount", "fees_amount", "net_amount", "paid", "lines")
    list_filter = (recent_values_filter("source", "processor", label=processor_name), "merchant_account")
    search_fields = ("reference",)  # shows the box; the lookup is exact, below
    search_help_text = "A payout id or batch number, exactly as the processor gives it."
    ordering = ("-posted_at", "-id")
    paginator = CappedCountPaginator
    show_full_result_count = False
    fields = (
        "reference",
        "processor",
        "merchant_account",
        "posted_at",
        "gross_amount",
        "fees_amount",
        "net_amount",
        "paid",
        "lines",
    )
    readonly_fields = fields

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[ProcessorPayout], search_term: str
    ) -> tuple[QuerySet[ProcessorPayout], bool]:
        term = search_term.strip()
        return (queryset.filter(reference=term) if term else queryset), False

    @admin.display(description="Processor", ordering="source")
    def processor(self, payout: ProcessorPayout) -> str:
        return processor_name(payout.source)

    @admin.display(description="Gross", ordering="gross")
    def gross_amount(self, payout: ProcessorPayout) -> str:
        return format_money(payout.gross, payout.currency)

    @admin.display(description="Fees", ordering="fees")
    def fees_amount(self, payout: ProcessorPayout) -> str:
        return format_money(payout.fees, payout.currency)

    @admin.display(description="Net", ordering="net")
    def net_amount(self, payout: ProcessorPayout) -> str:
        return format_money(payout.net, payout.currency)

    @admin.display(description="Paid out")
    def paid(self, payout: ProcessorPayout) -> str:
        """The processor's own payout line; none yet while the ledger has only the lines it pays."""
        return "-" if payout.paid_out is None else format_money(payout.paid_out, payout.currency)

    @admin.display(description="Lines", ordering="line_count")
    def lines(self, payout: ProcessorPayout) -> str:
        query = urlencode(
            {
                "payout_reference": payout.reference,
                "source": payout.source,
                "net_currency": payout.currency,
                "merchant_account__id__exact": payout.merchant_account_id,
            }
        )
        url = f"{reverse('admin:settlements_ledgerentry_changelist')}?{query}"
        return format_html(
            '<a href="{}">{} {}</a>', url, payout.line_count, "line" if payout.line_count == 1 else "lines"
        )


@admin.register(SettlementReportFile)
class SettlementReportFileAdmin(ReadOnlyAdminMixin, ReportFileAdminBase):
    list_display = ("created_at", "report", "name", "status", "entry_count", "message")
    list_filter = ("status", recent_values_filter("report__source", "processor", label=processor_name))
    search_fields = ("=name", "=report__name")
    list_select_related = ("report",)
    ordering = ("-created_at",)
    fields = ("id", "report", "name", "status", "entry_count", "message", "digest", "created_at")
    readonly_fields = fields


@admin.register(ReportFetch)
class ReportFetchAdmin(ReadOnlyAdminMixin, ReportFetchAdminBase):
    """Reports a processor announced: fetched, waiting for their next attempt (with why the last failed), or
    refused (a URL not on the processor's report hosts)."""

    desk_internal = True

    list_display = ("created_at", "name", "status", "attempts", "message", "payment_service")
    list_filter = ("status", "source")
    search_fields = ("=name",)
    list_select_related = ("payment_service",)
    ordering = ("-created_at",)
    fields = ("id", "merchant_account", "payment_service", "source", "name", "status", "attempts", "message", "url")
    readonly_fields = fields
