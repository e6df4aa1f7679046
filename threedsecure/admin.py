"""Admin for 3-D Secure: configurations and scenarios, read-only (merchants manage them through the API, where
the services check them). A scenario's card condition shows as BIN and last 4 only; its digest never shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin

from payments.staff.mixins import ReadOnlyAdminMixin
from threedsecure.models import ThreeDSConfiguration, ThreeDSScenario

if TYPE_CHECKING:
    ConfigurationAdminBase = admin.ModelAdmin[ThreeDSConfiguration]
    ScenarioAdminBase = admin.ModelAdmin[ThreeDSScenario]
else:
    ConfigurationAdminBase = ScenarioAdminBase = admin.ModelAdmin


@admin.register(ThreeDSConfiguration)
class ThreeDSConfigurationAdmin(ReadOnlyAdminMixin, ConfigurationAdminBase):
    list_display = ("merchant_account", "scheme", "currency", "merchant_name", "merchant_acquirer_bin", "updated_at")
    list_filter = ("merchant_account", "scheme")
    list_select_related = ("merchant_account",)
    search_fields = ("=id", "merchant_name", "merchant_acquirer_id")
    show_full_result_count = False
    fields = (
        "id",
        "merchant_account",
        "scheme",
        "currency",
        "merchant_acquirer_bin",
        "merchant_acquirer_id",
        "merchant_name",
        "merchant_country_code",
        "merchant_category_code",
        "merchant_url",
        "metadata",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields


@admin.register(ThreeDSScenario)
class ThreeDSScenarioAdmin(ReadOnlyAdminMixin, ScenarioAdminBase):
    list_display = ("id", "merchant_account", "authentication_status", "result_status", "amount", "card", "created_at")
    list_filter = ("merchant_account", "authentication_status")
    list_select_related = ("merchant_account",)
    search_fields = ("=id",)
    show_full_result_count = False
    fields = (
        "id",
        "merchant_account",
        "amount",
        "card",
        "email_address",
        "first_name",
        "last_name",
        "external_identifier",
        "version",
        "authentication_status",
        "result_status",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields

    @admin.display(description="card number")
    def card(self, obj: ThreeDSScenario) -> str:
        return obj.masked_card_number or "-"
