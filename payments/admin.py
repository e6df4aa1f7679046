"""Admin for the payments platform's own records."""

from django.contrib import admin
from django.http import HttpRequest

from payments.models import RateLimitEvent


@admin.register(RateLimitEvent)
class RateLimitEventAdmin(admin.ModelAdmin):
    """Who hit an enumeration limit, for support staff: a read-only list, written only by the throttles."""

    list_display = ("created_at", "subject_kind", "subject", "merchant_account", "endpoint", "rate", "window_end")
    list_filter = ("merchant_account", ("created_at", admin.DateFieldListFilter), "subject_kind", "endpoint")
    date_hierarchy = "created_at"
    search_fields = ("token_id", "checkout_session_id", "=gift_card_last4")
    list_select_related = ("merchant_account",)
    # The digest that keeps one row per window identifies nothing to a person; it stays out of the page.
    exclude = ("subject_key",)
    show_full_result_count = False

    @admin.display(description="Subject")
    def subject(self, event: RateLimitEvent) -> str:
        return event.subject_display

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: RateLimitEvent | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: RateLimitEvent | None = None) -> bool:
        return False
