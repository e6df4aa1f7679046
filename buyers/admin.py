"""Buyers for support staff: find one among millions, read their profile, and (with change permission) correct it.

The profile (`<id>/profile/`) is every staff member's page of a buyer: who, contact, addresses, then what other
apps register as pivots (payments, stored methods, gift cards, the timeline), each row with the buttons the
member's role may press. The change form is the editors' page only: anyone else asking for it reads the profile.
"""

import uuid
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from rest_framework.exceptions import ValidationError

from buyers.models import Buyer
from buyers.pivots import address_lines, contact_lines
from buyers.selectors import buyer_list, buyer_staff_search
from buyers.services import buyer_create, buyer_update
from payments.rest.envelope import validation_details
from payments.shapes.addresses import BillingDetailsSerializer
from payments.staff import pivots
from payments.staff.columns import merchant_account_id
from payments.staff.pagination import CappedCountPaginator
from payments.staff.search import as_uuid

PROFILE = "admin:buyers_buyer_profile"
# The profile's order: payments first, the timeline last; any other pivot (an app added later) in between.
FIRST, LAST = ("transactions",), ("recent events",)
SHIPPING = "shipping details"  # the buyers app's own pivot: shown with the billing address


def profile_order(section: pivots.Section) -> int:
    return -1 if section.key in FIRST else 1 if section.key in LAST else 0


class BuyerChangeList(ChangeList):
    """Each row opens the buyer's profile, whoever reads the list; editors edit from there."""

    def url_for_result(self, result: Model) -> str:
        return reverse(PROFILE, args=[quote(result.pk)], current_app=self.model_admin.admin_site.name)


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
class BuyerAdmin(admin.ModelAdmin):
    """Support staff find a buyer by name, external identifier, email or id; saves use the buyer services."""

    desk_everyday = 2

    form = BuyerAdminForm
    list_display = ("display_name", "external_identifier", merchant_account_id, "created_at")
    list_filter = ("merchant_account", ("created_at", admin.DateFieldListFilter))
    search_fields = ("display_name", "external_identifier", "id")  # the actual lookups: get_search_results
    search_help_text = "A buyer id, external identifier, or part of a display name or email address (any case)."
    readonly_fields = ("id", "reconciliation_id", "created_at", "updated_at")
    ordering = ("-created_at", "-id")  # the keyset index order: no sort of the whole table
    paginator = CappedCountPaginator
    show_full_result_count = False
    list_per_page = 50

    fields = ("id", "reconciliation_id", *BuyerAdminForm.Meta.fields, "created_at", "updated_at")
    change_form_template = "admin/buyers/buyer/change_form.html"

    class Media:
        css = {"all": ("buyers/admin/profile.css",)}

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return BuyerChangeList

    @admin.display(description="Reconciliation ID")
    def reconciliation_id(self, buyer: Buyer) -> str:
        return buyer.reconciliation_id

    def get_urls(self) -> list[URLPattern]:
        profile = path(
            "<uuid:object_id>/profile/", self.admin_site.admin_view(self.profile_view), name="buyers_buyer_profile"
        )
        return [profile, *super().get_urls()]

    def profile_view(self, request: HttpRequest, object_id: uuid.UUID) -> HttpResponse:
        """Read only: who, contact, addresses, then the pivots with the buttons the user's role may press."""
        buyer = self.get_object(request, str(object_id))
        if buyer is None:
            raise Http404("No such buyer.")
        if not self.has_view_permission(request, buyer):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": buyer,
            "title": buyer.display_name or buyer.external_identifier or str(buyer.pk),
            "contact": contact_lines(buyer.billing_details),
            "billing_address": address_lines((buyer.billing_details or {}).get("address")),
            **_profile_sections(buyer, request),
            "can_change": self.has_change_permission(request, buyer),
            "can_delete": self.has_delete_permission(request, buyer),
            "media": self.media,
        }
        return TemplateResponse(request, "admin/buyers/buyer/profile.html", context)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # The change form is the editors' page; anyone else who opens it reads the profile (a POST is refused).
        if request.method == "GET" and not self.has_change_permission(request) and as_uuid(object_id):
            return HttpResponseRedirect(reverse(PROFILE, args=[object_id]))
        return super().change_view(request, object_id, form_url, extra_context)

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


def _profile_sections(buyer: Buyer, request: HttpRequest) -> dict[str, Any]:
    """The shipping addresses beside the billing address; the other pivots below, payments first."""
    every = pivots.sections(buyer, request.user)
    shipping = next((section for section in every if section.key == SHIPPING), None)
    rest = sorted((section for section in every if section.key != SHIPPING), key=profile_order)
    return {"shipping": shipping, "sections": rest}
