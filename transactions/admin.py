"""Admin for transactions: everything read-only, cards masked; capture, void and refund as confirmed actions.

The actions are admin actions (so POST only), show a confirmation page first, run the same services as
the API with the admin user as the actor, need `transactions.operate_transaction` (the Payments operator
group), and write one admin log entry per transaction they change.
"""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from payments.errors import DomainError
from payments.staff.mixins import ReadOnlyAdminMixin
from transactions.models import GiftCardRedemption, Refund, Transaction, TransactionEvent
from transactions.services import Actor, refund_all, refund_create, transaction_capture, transaction_void

OPERATE_PERMISSION = "transactions.operate_transaction"


class ReadOnlyInline(ReadOnlyAdminMixin, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return self.fields


class GiftCardRedemptionInline(ReadOnlyInline):
    model = GiftCardRedemption
    fields = ("id", "card", "amount", "refunded_amount", "status", "error_code", "created_at")

    @admin.display(description="Gift card")
    def card(self, redemption: GiftCardRedemption) -> str:
        return f"•••• {redemption.last4}"


class RefundInline(ReadOnlyInline):
    model = Refund
    fk_name = "transaction"
    fields = ("id", "amount", "target_type", "redemption", "status", "reason", "error_code", "created_at")
    ordering = ("created_at", "id")


class TransactionEventInline(ReadOnlyInline):
    model = TransactionEvent
    fields = ("created_at", "name", "from_status", "to_status", "amount", "actor_type", "actor")
    ordering = ("created_at", "id")


class AmountForm(forms.Form):
    """The optional amount of a capture or refund; only offered when one transaction is selected."""

    amount = forms.IntegerField(min_value=1, required=False, help_text="Minor units; empty means everything left.")


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "merchant_account",
        "status",
        "amount",
        "currency",
        "card",
        "captured_amount",
        "refunded_amount",
        "created_at",
    )
    list_filter = ("status", "currency", "merchant_account")
    search_fields = ("=id", "=external_identifier", "=buyer_external_identifier", "=payment_service_transaction_id")
    search_help_text = "A transaction id, external identifier, buyer external identifier or processor id."
    date_hierarchy = "created_at"
    show_full_result_count = False
    fieldsets = (
        (None, {"fields": ("id", "merchant_account", "status", "intent", "external_identifier", "metadata")}),
        ("Amounts", {"fields": ("amount", "currency", "authorized_amount", "captured_amount", "refunded_amount")}),
        ("Payment method", {"fields": ("method", "card", "card_expiration_date", "checkout_session_id")}),
        ("Buyer", {"fields": ("buyer", "buyer_external_identifier")}),
        (
            "Processor",
            {
                "fields": (
                    "payment_service_transaction_id",
                    "error_code",
                    "raw_response_code",
                    "raw_response_description",
                    "cvv_response_code",
                )
            },
        ),
        ("Times", {"fields": ("created_at", "authorized_at", "captured_at", "voided_at", "canceled_at", "updated_at")}),
    )
    inlines = (GiftCardRedemptionInline, RefundInline, TransactionEventInline)
    actions = ("capture", "void", "refund")

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return [field for _, options in self.fieldsets for field in options["fields"]]

    @admin.display(description="Card")
    def card(self, txn: Transaction) -> str:
        if txn.method != "card":
            return "-"
        return f"{txn.card_scheme or 'card'} {txn.card_bin}… •••• {txn.card_last4}"

    def has_operate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(OPERATE_PERMISSION)

    @admin.action(description="Capture selected transactions", permissions=["operate"])
    def capture(self, request: HttpRequest, queryset: QuerySet[Transaction]):
        def run(txn: Transaction, actor: Actor, amount: int | None) -> str:
            txn = transaction_capture(txn=txn, actor=actor, amount=amount).transaction
            return f"Capture: status {txn.status}, captured {txn.captured_amount} {txn.currency}."

        return self._operate(request, queryset, "capture", run, takes_amount=True)

    @admin.action(description="Void selected transactions", permissions=["operate"])
    def void(self, request: HttpRequest, queryset: QuerySet[Transaction]):
        def run(txn: Transaction, actor: Actor, amount: int | None) -> str:
            return f"Void: status {transaction_void(txn=txn, actor=actor).transaction.status}."

        return self._operate(request, queryset, "void", run)

    @admin.action(description="Refund selected transactions", permissions=["operate"])
    def refund(self, request: HttpRequest, queryset: QuerySet[Transaction]):
        def run(txn: Transaction, actor: Actor, amount: int | None) -> str:
            refunds = (
                [refund_create(txn=txn, actor=actor, amount=amount)]
                if amount
                else refund_all(txn=txn, actor=actor, reason="Refunded by support")
            )
            return (
                "Refund: " + ", ".join(f"{refund.amount} {refund.currency} {refund.status}" for refund in refunds) + "."
            )

        return self._operate(request, queryset, "refund", run, takes_amount=True)

    def _operate(
        self,
        request: HttpRequest,
        queryset: QuerySet[Transaction],
        name: str,
        run: Callable[[Transaction, Actor, int | None], str],
        *,
        takes_amount: bool = False,
    ):
        """Show the confirmation page; once confirmed, run the service per transaction and log each change."""
        single = takes_amount and queryset.count() == 1
        form = AmountForm(request.POST if request.POST.get("confirmed") else None)
        if not request.POST.get("confirmed") or (single and not form.is_valid()):
            return self._confirmation(request, queryset, name, form if single else None)
        amount = form.cleaned_data.get("amount") if single else None
        actor = Actor.admin(request.user.get_username())
        for txn in queryset:
            try:
                message = run(txn, actor, amount)
            except DomainError as exc:
                self.message_user(request, f"{txn.pk}: {exc.message}", messages.ERROR)
                continue
            self.log_change(request, txn, message)
            self.message_user(request, f"{txn.pk}: {message}", messages.SUCCESS)
        return None

    def _confirmation(self, request: HttpRequest, queryset, name: str, form: AmountForm | None) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": f"Confirm: {name}",
            "opts": self.model._meta,
            "action": name,
            "transactions": queryset,
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/transactions/transaction/confirm_action.html", context)


@admin.register(Refund)
class RefundAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "transaction",
        "merchant_account",
        "amount",
        "currency",
        "target_type",
        "status",
        "created_at",
    )
    list_filter = ("status", "target_type", "merchant_account")
    search_fields = ("=id", "=transaction__id", "=external_identifier")
    show_full_result_count = False

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return [field.name for field in Refund._meta.fields]
