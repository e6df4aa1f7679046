"""Checkout sessions for support staff: look one up and see its card (or the stored method's) as scheme, BIN and last 4,
nothing more.

Sessions are read-only here; deleting one goes through `checkout_session_delete`, so its card goes too.
"""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from checkout.models import CheckoutSession
from checkout.services import checkout_session_delete
from payments.money import format_money
from payments.staff.columns import merchant_account_id

_SHOWN_FIELDS = (
    "id",
    "merchant_account",
    "amount_shown",
    "country",
    "card_summary",
    "postal_code",
    "intent",
    "payment_source",
    "cart_items",
    "metadata",
    "buyer",
    "airline",
    "expires_at",
    "created_at",
    "updated_at",
)


@admin.register(CheckoutSession)
class CheckoutSessionAdmin(admin.ModelAdmin):
    list_display = ("id", merchant_account_id, "amount_shown", "card_summary", "expires_at", "is_live")
    list_filter = ("merchant_account",)
    search_fields = ("=id",)
    search_help_text = "A checkout session id."
    list_select_related = ("card", "stored_card")
    ordering = ("-created_at", "-id")
    show_full_result_count = False
    fields = readonly_fields = _SHOWN_FIELDS

    @admin.display(description="Amount", ordering="amount")
    def amount_shown(self, session: CheckoutSession) -> str:
        return format_money(session.amount, session.currency)

    @admin.display(description="Card")
    def card_summary(self, session: CheckoutSession) -> str:
        held = session.held_payment_method
        if held is None:
            return "—"
        return str(held.card) if held.id is None else f"{held.card} (stored payment method {held.id})"

    @admin.display(description="Live", boolean=True)
    def is_live(self, session: CheckoutSession) -> bool:
        return session.expires_at > timezone.now()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: CheckoutSession | None = None) -> bool:
        return False

    def delete_model(self, request: HttpRequest, obj: CheckoutSession) -> None:
        checkout_session_delete(session=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[CheckoutSession]) -> None:
        for session in queryset:
            checkout_session_delete(session=session)
