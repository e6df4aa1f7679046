"""Payment links on the support desk: each with its state, amount, deadline and the payment that paid it.
Read-only: links are created and expired through the API (and the expiry job)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from paymentlinks.models import PaymentLink
from payments.money import format_money
from payments.staff.dates import desk_datetime
from payments.staff.mixins import ReadOnlyAdminMixin
from payments.staff.pagination import CappedCountPaginator

if TYPE_CHECKING:
    PaymentLinkAdminBase = admin.ModelAdmin[PaymentLink]
else:
    PaymentLinkAdminBase = admin.ModelAdmin


@admin.register(PaymentLink)
class PaymentLinkAdmin(ReadOnlyAdminMixin, PaymentLinkAdminBase):
    list_display = ("created", "state", "amount_shown", "merchant_name", "external_identifier", "deadline", "paid_by")
    list_filter = ("status", "merchant_account")
    search_fields = ("=id", "=external_identifier", "=transaction_id")
    ordering = ("-created_at", "-id")
    paginator = CappedCountPaginator
    show_full_result_count = False
    fields = (
        "id",
        "merchant_account",
        "state",
        "amount_shown",
        "intent",
        "country",
        "locale",
        "external_identifier",
        "merchant_name",
        "merchant_message",
        "return_url",
        "deadline",
        "paid_by",
        "link_transactions",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields

    @admin.display(description="Created", ordering="created_at")
    def created(self, link: PaymentLink) -> str:
        return desk_datetime(link.created_at)

    @admin.display(description="State", ordering="status")
    def state(self, link: PaymentLink) -> str:
        # The state a buyer meets: a link past its deadline is expired before the expiry job records it.
        return link.shown_status.capitalize()

    @admin.display(description="Amount", ordering="amount")
    def amount_shown(self, link: PaymentLink) -> str:
        return format_money(link.amount, link.currency)

    @admin.display(description="Expires", ordering="expires_at")
    def deadline(self, link: PaymentLink) -> str:
        return desk_datetime(link.expires_at) if link.expires_at else "Never"

    @admin.display(description="Payment")
    def paid_by(self, link: PaymentLink) -> str:
        if link.transaction_id is None:
            return "-"
        url = reverse("admin:transactions_transaction_change", args=[link.transaction_id])
        return format_html('<a href="{}">{}</a>', url, str(link.transaction_id).split("-")[0])

    @admin.display(description="Every payment attempt")
    def link_transactions(self, link: PaymentLink) -> str:
        url = reverse("admin:transactions_transaction_changelist") + f"?payment_link_id={link.pk}"
        return format_html('<a href="{}">Transactions of this link</a>', url)
