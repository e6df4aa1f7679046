"""Admin for the gift card program: cards shown by their last 4 digits only, money read-only.

Support staff find a card by its full number (looked up through its keyed hash, never stored) or by its
last 4 digits. Deactivating is the one change, a POST-only action that calls the service and is logged.
"""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from giftcards.hashing import number_hash
from giftcards.models import GiftCard, GiftCardIssuance, GiftCardService, IssuedGiftCard, LedgerEntry
from giftcards.services import MAX_NUMBER_LENGTH, MIN_NUMBER_LENGTH, gift_card_delete, issued_card_deactivate
from payments.money import format_money
from payments.staff.mixins import ReadOnlyAdminMixin
from payments.staff.pivots import PivotsMixin

DEACTIVATE_PERMISSION = "giftcards.deactivate_issuedgiftcard"


def masked(last4: str) -> str:
    return f"•••• {last4}"


class LedgerEntryInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = LedgerEntry
    fields = ("created_at", "kind", "amount_shown", "balance_shown", "reference")
    readonly_fields = fields
    ordering = ("created_at", "id")
    extra = 0

    def get_queryset(self, request: HttpRequest) -> QuerySet[LedgerEntry]:
        return super().get_queryset(request).select_related("card")

    @admin.display(description="Amount")
    def amount_shown(self, entry: LedgerEntry) -> str:
        return format_money(entry.amount, entry.card.currency)

    @admin.display(description="Balance after")
    def balance_shown(self, entry: LedgerEntry) -> str:
        return format_money(entry.balance_after, entry.card.currency)


@admin.register(IssuedGiftCard)
class IssuedGiftCardAdmin(PivotsMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("card", "merchant_account", "balance_shown", "status", "expires_at", "created_at")
    list_filter = ("status", "currency", "service__merchant_account")
    list_select_related = ("service",)
    search_fields = ("=last4",)
    search_help_text = "The full card number, or its last 4 digits."
    fields = (
        "card",
        "merchant_account",
        "balance_shown",
        "status",
        "expires_at",
        "locked_until",
        "created_at",
        "updated_at",
        "related",
    )
    readonly_fields = fields
    inlines = (LedgerEntryInline,)
    actions = ("deactivate",)
    show_full_result_count = False

    @admin.display(description="Card")
    def card(self, card: IssuedGiftCard) -> str:
        return masked(card.last4)

    def get_queryset(self, request: HttpRequest) -> QuerySet[IssuedGiftCard]:
        return super().get_queryset(request).select_related("service")

    @admin.display(description="Balance", ordering="balance")
    def balance_shown(self, card: IssuedGiftCard) -> str:
        return format_money(card.balance, card.currency)

    @admin.display(description="Merchant account", ordering="service__merchant_account")
    def merchant_account(self, card: IssuedGiftCard) -> str:
        return card.service.merchant_account_id

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str):
        term = search_term.strip().replace(" ", "")
        if term.isascii() and term.isdigit() and MIN_NUMBER_LENGTH <= len(term) <= MAX_NUMBER_LENGTH:
            return queryset.filter(number_hash=number_hash(term)), False
        return super().get_search_results(request, queryset, search_term)

    def has_deactivate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(DEACTIVATE_PERMISSION)

    @admin.action(description="Deactivate selected gift cards", permissions=["deactivate"])
    def deactivate(self, request: HttpRequest, queryset: QuerySet[IssuedGiftCard]) -> None:
        for card in queryset:
            if card.status != IssuedGiftCard.Status.INACTIVE:
                issued_card_deactivate(card=card)
                self.log_change(request, card, "Deactivated.")
        self.message_user(request, f"Deactivated {queryset.count()} gift card(s).", messages.SUCCESS)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "card", "kind", "amount_shown", "balance_shown", "reference")
    list_filter = ("kind",)
    list_select_related = ("card",)
    search_fields = ("=reference",)
    search_help_text = "A reference, e.g. a transaction id."
    fields = list_display
    readonly_fields = fields
    show_full_result_count = False
    amount_shown = LedgerEntryInline.amount_shown
    balance_shown = LedgerEntryInline.balance_shown


@admin.register(GiftCard)
class GiftCardAdmin(PivotsMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Stored gift cards; deleting one forgets the reference through the service, never the card's money."""

    list_display = ("id", "card", "buyer", "merchant_account", "usage_count", "last_used_at", "created_at")
    list_filter = ("merchant_account",)
    list_select_related = ("issued_card", "buyer", "merchant_account")
    search_fields = ("=id", "=buyer__external_identifier", "=issued_card__last4")
    raw_id_fields = ("buyer",)
    fields = (
        "id",
        "card",
        "buyer",
        "merchant_account",
        "usage_count",
        "last_used_at",
        "created_at",
        "updated_at",
        "related",
    )
    readonly_fields = fields
    show_full_result_count = False

    @admin.display(description="Card")
    def card(self, gift_card: GiftCard) -> str:
        return masked(gift_card.issued_card.last4)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.has_perm("giftcards.delete_giftcard")

    def delete_model(self, request: HttpRequest, obj: GiftCard) -> None:
        gift_card_delete(gift_card=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[GiftCard]) -> None:
        for gift_card in queryset:
            gift_card_delete(gift_card=gift_card)


@admin.register(GiftCardService)
class GiftCardServiceAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("display_name", "merchant_account", "provider", "created_at")
    fields = ("id", "display_name", "merchant_account", "provider", "themes", "created_at", "updated_at")
    readonly_fields = fields


@admin.register(GiftCardIssuance)
class GiftCardIssuanceAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Issuances over the API: their terms and whether the card was shown; never the sealed number and PIN."""

    list_display = ("id", "merchant_account", "theme", "amount_shown", "external_identifier", "shown", "created_at")
    list_filter = ("merchant_account",)
    search_fields = ("=id", "=external_identifier")
    fields = (
        "id",
        "merchant_account",
        "issued_card",
        "theme",
        "amount_shown",
        "external_identifier",
        "shown",
        "reveal_until",
        "revealed_at",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="amount")
    def amount_shown(self, obj: GiftCardIssuance) -> str:
        return format_money(obj.amount, obj.currency)

    @admin.display(description="card shown")
    def shown(self, obj: GiftCardIssuance) -> str:
        if obj.revealed_at is not None:
            return "shown"
        return "waiting" if obj.sealed_secret is not None else "no longer available"
