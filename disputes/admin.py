"""Disputes on the support desk: the queue of open disputes, the soonest answer due first, each with its amount,
reason, buyer and transaction. Read-only: only the processors' notifications write disputes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from disputes.models import Dispute
from payments.choices import DisputeState
from payments.money import format_money
from payments.staff.dates import desk_datetime
from payments.staff.mixins import ReadOnlyAdminMixin
from payments.staff.pagination import CappedCountPaginator
from transactions.badges import dispute_badge

if TYPE_CHECKING:
    DisputeAdminBase = admin.ModelAdmin[Dispute]
else:
    DisputeAdminBase = admin.ModelAdmin


class OpenFilter(admin.SimpleListFilter):
    """Open disputes (the queue) unless asked otherwise: what needs an answer is what support looks for."""

    title = "open"
    parameter_name = "open"

    def lookups(self, request, model_admin):
        return [("yes", "Open (the queue)"), ("no", "Closed"), ("all", "All")]

    def choices(self, changelist):
        for lookup, title in self.lookup_choices:
            yield {
                "selected": (self.value() or "yes") == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Dispute]) -> QuerySet[Dispute]:
        value = self.value() or "yes"
        if value == "yes":
            return queryset.filter(state__in=DisputeState.OPEN)
        if value == "no":
            return queryset.filter(state__in=DisputeState.CLOSED)
        return queryset


@admin.register(Dispute)
class DisputeAdmin(ReadOnlyAdminMixin, DisputeAdminBase):
    desk_everyday = 4

    list_display = ("due", "state_shown", "amount_shown", "reason", "buyer", "transaction_link", "payment_service")
    list_filter = (OpenFilter, "state", "merchant_account")
    search_fields = ("=processor_dispute_id", "=transaction__id", "=transaction__payment_service_transaction_id")
    list_select_related = ("transaction", "payment_service")
    # The soonest answer first; a dispute that names no due date last.
    ordering = ("due_at", "created_at", "id")
    paginator = CappedCountPaginator
    show_full_result_count = False
    fields = (
        "id",
        "merchant_account",
        "transaction_link",
        "buyer",
        "payment_service",
        "processor_dispute_id",
        "state_shown",
        "reason",
        "amount_shown",
        "due",
        "fact_at",
        "closed_at",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields

    class Media:
        # The transactions' badges (the dispute badge is theirs) and their list on a phone.
        css = {"all": ("transactions/admin/transaction-list.css",)}

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        # A buyer's page links to the buyer's disputes (disputes.pivots).
        return lookup == "transaction__buyer__id__exact" or super().lookup_allowed(lookup, value, request)

    @admin.display(description="Answer due", ordering="due_at")
    def due(self, dispute: Dispute) -> str:
        return desk_datetime(dispute.due_at) if dispute.due_at else "-"

    @admin.display(description="State", ordering="state")
    def state_shown(self, dispute: Dispute) -> str:
        return dispute_badge([dispute.state])

    @admin.display(description="Amount", ordering="amount")
    def amount_shown(self, dispute: Dispute) -> str:
        return format_money(dispute.amount, dispute.currency)

    @admin.display(description="Buyer")
    def buyer(self, dispute: Dispute) -> str:
        # From the transaction's own copy of the buyer: no join beyond the transaction's.
        txn = dispute.transaction
        details = txn.buyer_details if isinstance(txn.buyer_details, dict) else {}
        parts = (details.get("display_name"), txn.buyer_email_address, txn.buyer_external_identifier)
        return " · ".join(part for part in parts if part) or "-"

    @admin.display(description="Transaction")
    def transaction_link(self, dispute: Dispute) -> str:
        url = reverse("admin:transactions_transaction_change", args=[dispute.transaction_id])
        return format_html('<a href="{}">{}</a>', url, str(dispute.transaction_id).split("-")[0])
