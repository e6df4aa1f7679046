"""Stored payment methods for support staff: masked cards, read-only; deleting one goes through the service.

Support views; a user with the delete permission (the Payments operator role) may delete, which deletes the card
data at once and is logged (the admin's own history and the `paymentmethods.admin` logger).
"""

import logging

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from paymentmethods.models import PaymentMethod
from paymentmethods.selectors import payment_method_staff_search
from paymentmethods.services import payment_method_delete
from payments.staff.cards import card_facts_words
from payments.staff.mixins import ReadOnlyAdminMixin
from payments.staff.pagination import CappedCountPaginator
from payments.staff.pivots import PivotsMixin

logger = logging.getLogger("paymentmethods.admin")
DELETE_PERMISSION = "paymentmethods.delete_paymentmethod"


@admin.register(PaymentMethod)
class PaymentMethodAdmin(PivotsMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "card_masked", "expiration_date", "buyer", "merchant_account", "usage_count", "created_at")
    list_filter = ("merchant_account",)
    list_select_related = ("card", "buyer", "merchant_account")
    search_fields = ("=id",)  # shows the box; the lookups are payment_method_staff_search's
    search_help_text = (
        "A payment method or buyer id, the card's last 4, an external identifier, or part of the buyer's name or "
        "email address."
    )
    fields = (
        "id",
        "card_masked",
        "card_facts",
        "expiration_date",
        "buyer",
        "merchant_account",
        "external_identifier",
        "status",
        "usage_count",
        "last_used_at",
        "cit_usage_count",
        "cit_last_used_at",
        "has_replacement",
        "created_at",
        "updated_at",
        "related",
    )
    readonly_fields = fields
    ordering = ("-created_at", "-id")
    paginator = CappedCountPaginator  # a search by name can match many: never count the whole table
    show_full_result_count = False

    @admin.display(description="Card")
    def card_masked(self, method: PaymentMethod) -> str:
        return str(method.card)  # scheme, BIN and last 4: never the number

    @admin.display(description="Card type and issuer")
    def card_facts(self, method: PaymentMethod) -> str:
        card = method.card  # joined by get_queryset: what the BIN table said when the vault stored it
        return card_facts_words(card.scheme, card.card_type, card.country, card.issuer_name)

    def get_queryset(self, request: HttpRequest) -> QuerySet[PaymentMethod]:
        # The list's joins on every page (the card too for the change page): the list applies its own
        # `list_select_related` only to a queryset that selects nothing yet.
        return super().get_queryset(request).select_related(*self.list_select_related)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[PaymentMethod], search_term: str
    ) -> tuple[QuerySet[PaymentMethod], bool]:
        if not search_term.strip():
            return queryset, False
        return payment_method_staff_search(queryset, search_term), False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return request.user.has_perm(DELETE_PERMISSION)

    def delete_model(self, request: HttpRequest, obj: PaymentMethod) -> None:
        self._delete(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[PaymentMethod]) -> None:
        for method in queryset.select_related("card"):
            self._delete(request, method)

    @staticmethod
    def _delete(request: HttpRequest, method: PaymentMethod) -> None:
        logger.info("Payment method %s of buyer %s deleted by staff user %s", method.pk, method.buyer_id, request.user)
        payment_method_delete(method=method)
