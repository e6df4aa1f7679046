"""Buyers for support staff: find one among millions, see it, and (with change permission) correct it."""

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe
from rest_framework.exceptions import ValidationError

from buyers.models import Buyer
from buyers.selectors import buyer_list, buyer_staff_search
from buyers.services import buyer_create, buyer_update
from payments.rest.envelope import validation_details
from payments.shapes.addresses import BillingDetailsSerializer
from payments.staff.pagination import CappedCountPaginator
from payments.staff.pivots import PivotsMixin


def billing_lines(details: dict[str, Any] | None) -> str:
    """Billing details as a person reads them: name, email, phone, then the address, one per line."""
    if not details:
        return "-"
    address = details.get("address") or {}
    name = " ".join(part for part in (details.get("first_name"), details.get("last_name")) if part)
    street = ", ".join(part for part in (address.get("line1"), address.get("line2")) if part)
    place = " ".join(part for part in (address.get("postal_code"), address.get("city")) if part)
    lines = [name, details.get("email_address"), details.get("phone_number"), street, place, address.get("country")]
    return format_html_join(mark_safe("<br>"), "{}", ((line,) for line in lines if line))


class BuyerAdminForm(forms.ModelForm):
    """The API's own rules for billing details and external identifiers, with their messages on the form."""

    class Meta:
        model = Buyer
        fields = ("merchant_account", "display_name", "external_identifier", "account_number", "billing_details")

    def clean_billing_details(self) -> dict | None:
        value = self.cleaned_data.get("billing_details")
        if value is None:
            return None
        serializer = BillingDetailsSerializer(data=value)
        if not serializer.is_valid():
            details = validation_details(ValidationError(serializer.errors))
            raise forms.ValidationError([f"{detail['pointer']}: {detail['message']}" for detail in details])
        return serializer.validated_data

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data  # what ModelForm.clean() returns; its stub also allows None
        account = cleaned.get("merchant_account") or getattr(self.instance, "merchant_account", None)
        external_identifier = cleaned.get("external_identifier")
        if account and external_identifier:
            taken = buyer_list(merchant_account=account).filter(external_identifier=external_identifier)
            if taken.exclude(pk=self.instance.pk).exists():
                # Reported here, the field is excluded from Django's generic constraint message.
                self.add_error("external_identifier", "A buyer with this external identifier already exists.")
        return cleaned


@admin.register(Buyer)
class BuyerAdmin(PivotsMixin, admin.ModelAdmin):
    """Support staff find a buyer by name, external identifier, email or id; saves use the buyer services."""

    form = BuyerAdminForm
    list_display = ("display_name", "external_identifier", "merchant_account_id", "created_at")
    list_filter = ("merchant_account", ("created_at", admin.DateFieldListFilter))
    search_fields = ("display_name", "external_identifier", "id")  # the actual lookups: get_search_results
    search_help_text = "A buyer id, external identifier, or part of a display name or email address (any case)."
    readonly_fields = ("id", "reconciliation_id", "created_at", "updated_at", "related", "billing")
    ordering = ("-created_at", "-id")  # the keyset index order: no sort of the whole table
    paginator = CappedCountPaginator
    show_full_result_count = False
    list_per_page = 50

    def get_fields(self, request: HttpRequest, obj: Buyer | None = None) -> tuple[str, ...]:
        editable: tuple[str, ...] = BuyerAdminForm.Meta.fields
        if obj is not None and not self.has_change_permission(request, obj):
            # Read as an address card, not the JSON an editor types.
            editable = tuple("billing" if name == "billing_details" else name for name in editable)
        pivots = ("related",) if obj is not None else ()
        return ("id", "reconciliation_id", *editable, *pivots, "created_at", "updated_at")

    @admin.display(description="Billing details")
    def billing(self, buyer: Buyer) -> str:
        return billing_lines(buyer.billing_details)

    def get_readonly_fields(self, request: HttpRequest, obj: Buyer | None = None) -> tuple[str, ...]:
        # A buyer never moves between merchant accounts: other records refer to it within its account.
        return (*self.readonly_fields, "merchant_account") if obj else self.readonly_fields

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str) -> tuple[QuerySet, bool]:
        """One predicate per kind of term, instead of Django's OR of `icontains` over every field."""
        if not search_term.strip():
            return queryset, False
        return buyer_staff_search(queryset, search_term), False

    def save_model(self, request: HttpRequest, obj: Buyer, form: BuyerAdminForm, change: bool) -> None:
        """Through the buyer services, like the API."""
        if change:
            buyer_update(buyer=obj, **{name: form.cleaned_data[name] for name in form.changed_data})
            return
        created = buyer_create(**{name: form.cleaned_data[name] for name in BuyerAdminForm.Meta.fields})
        # The admin goes on to log and redirect with `obj`: make it the row the service wrote.
        obj.pk, obj.created_at, obj.updated_at = created.pk, created.created_at, created.updated_at
        obj._state.adding = False
