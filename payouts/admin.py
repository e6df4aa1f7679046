"""Payouts for support staff: listed and shown with the card masked, read-only. A user with the `pay_out` permission
(the Payments operator role) may make one to a stored card through the same service as the API; the admin's history
records it, and the audit log with it (`payments.audit`)."""

from __future__ import annotations

import logging
from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from paymentmethods.models import PaymentMethod
from payments.errors import DomainError
from payments.money import format_money
from payments.staff.account_settings import AccountSetting
from payments.staff.cards import card_facts_words
from payments.staff.pagination import CappedCountPaginator
from payments.validators import validate_payment_currency
from paymentservices.models import PaymentService
from payouts.models import Payout
from payouts.requests import PayoutCreateRequest, PayoutStoredCard
from payouts.services import (
    payout_account_limit,
    payout_account_limit_set,
    payout_check,
    payout_create,
    payout_limit_ceiling,
)

logger = logging.getLogger("payouts.admin")
PAY_OUT_PERMISSION = "payouts.pay_out"


class PayoutCreateForm(forms.ModelForm):
    """A payout to one of the account's stored cards, in minor units; checked by the service's own rules before it
    is made (a refusal shows on the form, nothing written)."""

    payment_method = forms.ModelChoiceField(queryset=PaymentMethod.objects.select_related("card"))
    payment_service = forms.ModelChoiceField(
        queryset=PaymentService.objects.filter(is_deleted=False),
        required=False,
        help_text="Left empty: the first service of the account that can pay out.",
    )
    amount = forms.IntegerField(min_value=1, help_text="In minor units (cents for USD).")
    currency = forms.CharField(max_length=3, validators=[validate_payment_currency])

    class Meta:
        model = Payout
        fields = ("merchant_account", "payment_method", "payment_service", "amount", "currency", "external_identifier")

    def payout_request(self) -> PayoutCreateRequest:
        data = self.cleaned_data
        service = data.get("payment_service")
        return PayoutCreateRequest(
            amount=data["amount"],
            currency=data["currency"],
            payment_method=PayoutStoredCard(id=data["payment_method"].pk),
            payment_service_id=service.pk if service is not None else None,
            external_identifier=data.get("external_identifier") or None,
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            payout_check(merchant_account=data["merchant_account"], request=self.payout_request())
        except DomainError as error:
            raise forms.ValidationError(error.message) from None
        return data

    def _post_clean(self) -> None:
        pass  # the service makes the row; the form's instance is never validated nor saved as it stands


@admin.register(Payout)
class PayoutAdmin(admin.ModelAdmin):
    list_display = ("id", "amount_shown", "status", "card_masked", "payment_service", "merchant_account", "created_at")
    list_filter = ("status", "merchant_account")
    list_select_related = ("payment_service", "merchant_account")
    search_fields = ("=id", "=external_identifier", "=payment_service_payout_id")
    fields = (
        "id",
        "merchant_account",
        "amount_shown",
        "status",
        "category",
        "card_masked",
        "card_facts",
        "payment_method",
        "buyer",
        "payment_service",
        "payment_service_payout_id",
        "error_code",
        "raw_response_code",
        "raw_response_description",
        "attempts",
        "external_identifier",
        "merchant",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields
    ordering = ("-created_at", "-id")
    paginator = CappedCountPaginator
    show_full_result_count = False

    @admin.display(description="Amount")
    def amount_shown(self, payout: Payout) -> str:
        return format_money(payout.amount, payout.currency)

    @admin.display(description="Card")
    def card_masked(self, payout: Payout) -> str:
        return f"{payout.card_scheme or 'card'} {payout.card_bin or ''}…{payout.card_last4 or ''}"  # never the number

    @admin.display(description="Card type and issuer")
    def card_facts(self, payout: Payout) -> str:
        # The payout's own copy of what the BIN table said of the card: no join, no lookup.
        return card_facts_words(payout.card_scheme, payout.card_type, payout.card_country, payout.card_issuer_name)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(PAY_OUT_PERMISSION)

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = PayoutCreateForm
            kwargs["fields"] = PayoutCreateForm.Meta.fields
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return PayoutCreateForm.Meta.fields if obj is None else self.fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: Payout, form: Any, change: bool) -> None:
        payout = payout_create(merchant_account=form.cleaned_data["merchant_account"], request=form.payout_request())
        logger.info("Payout %s (%s) made by staff user %s", payout.pk, payout.status, request.user)
        obj.__dict__.update({key: value for key, value in payout.__dict__.items() if not key.startswith("_")})
        obj._state = payout._state


def _limit_field() -> forms.IntegerField:
    ceiling = payout_limit_ceiling()
    return forms.IntegerField(
        label="Payout limit",
        required=False,
        min_value=1,
        max_value=ceiling,
        help_text=(
            "The largest payout this account may make, in minor units of the payout's currency (1000 is 10.00 in a "
            f"two-decimal currency). Empty: the server's limit. At most {ceiling}, the server's; a currency's own "
            "server limit still applies where it is lower."
        ),
    )


# The account's own payout limit on its desk page (registered by the app: payouts.apps).
PAYOUT_LIMIT_SETTING = AccountSetting(
    name="payout_limit",
    field=_limit_field,
    value=lambda account: payout_account_limit(merchant_account=account),
    save=lambda account, value: payout_account_limit_set(merchant_account=account, max_amount=value),
)
