"""Payment service and definition shapes, field for field as upstream's schemas.

Secret credential fields are never rendered (upstream leaves them out of `fields`); the settings this server does not
act on yet are refused by name unless they ask for nothing.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments.rest.fields import (
    CountryField,
    CurrencyField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    TimestampField,
    UnsupportedField,
)
from payments.rest.outputs import ConstantField, OutputSerializer
from paymentservices import processors
from paymentservices.models import PaymentService
from paymentservices.processors import processor_get

_PROFILE = "merchant profiles for scheme network tokens are not kept by this server."
_TOKENS = "network tokens and processor-side card tokenization are not used by this server."


class FieldInput(StrictSerializer):
    """Upstream's `Field`: one credential or setting, by key."""

    key = StrictCharField(min_length=1, max_length=50)
    value = StrictCharField(min_length=1, max_length=10000, trim_whitespace=False)


class VoidableFieldInput(FieldInput):
    """Upstream's `VoidableField`: an empty value clears an optional field."""

    value = StrictCharField(max_length=10000, allow_blank=True, trim_whitespace=False)


def _codes(child: serializers.Field[Any, Any, Any, Any], **kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=child, min_length=1, max_length=300, **kwargs)


class _ServiceSettings(StrictSerializer):
    """What create and update share."""

    # The sandbox's 3-D Secure runs before this service is asked (docs/three-d-secure.md); null keeps the value.
    three_d_secure_enabled = StrictBooleanField(required=False, allow_null=True)
    merchant_profile = UnsupportedField(_PROFILE, json_type="object")
    payment_method_tokenization_enabled = UnsupportedField(_TOKENS, accepts=False)
    network_tokens_enabled = UnsupportedField(_TOKENS, accepts=False)
    open_loop = UnsupportedField("open-loop processing is not offered.", accepts=False)
    # Taken where this server fetches the processor's settlement reports (paymentservices.services); null keeps it.
    settlement_reporting_enabled = StrictBooleanField(required=False, allow_null=True)
    # Sent by the official SDK (false unless asked), though not in the API document this server follows.
    refund_ingestion_enabled = UnsupportedField("refunds made at the processor are not fetched.", accepts=False)
    reporting_fields = UnsupportedField("no definition here has reporting fields.", accepts=[], json_type="array")


class PaymentServiceCreateInput(_ServiceSettings):
    """Upstream's `PaymentServiceCreate`."""

    display_name = StrictCharField(min_length=1, max_length=200)
    payment_service_definition_id = StrictCharField(min_length=1, max_length=50)
    fields = serializers.ListField(child=FieldInput(), max_length=50)  # type: ignore[assignment]
    position = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=10000)
    accepted_currencies = _codes(CurrencyField())
    accepted_countries = _codes(CountryField())
    active = StrictBooleanField(required=False, allow_null=True, default=True)


class PaymentServiceUpdateInput(_ServiceSettings):
    """Upstream's `PaymentServiceUpdate`: fields left out (or null) keep their value."""

    display_name = StrictCharField(required=False, allow_null=True, min_length=1, max_length=200)
    fields = serializers.ListField(  # type: ignore[assignment]
        child=VoidableFieldInput(), required=False, allow_null=True, max_length=50
    )
    position = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=10000)
    accepted_currencies = _codes(CurrencyField(), required=False, allow_null=True)
    accepted_countries = _codes(CountryField(), required=False, allow_null=True)
    active = StrictBooleanField(required=False, allow_null=True)


class VerifyCredentialsInput(StrictSerializer):
    """Upstream's `VerifyCredentials`."""

    payment_service_definition_id = StrictCharField(min_length=1, max_length=50)
    payment_service_id = serializers.UUIDField(required=False, allow_null=True)
    fields = serializers.ListField(child=FieldInput(), max_length=50)  # type: ignore[assignment]


class FieldOutput(OutputSerializer):
    key = serializers.CharField()
    value = serializers.CharField()


def definition_method(definition_id: str) -> str:
    """The method of a definition's services (a definition no longer shipped took cards, as every early one did)."""
    processor = processor_get(definition_id)
    return "card" if processor is None else processor.method


def webhook_url(service: PaymentService, request: Any) -> str | None:
    """Where the service's processor sends its notifications: a URL on this server, for definitions that take them."""
    processor = processor_get(service.definition_id)
    if processor is None or processor.notification_secret_field is None:
        return None
    path = reverse("payment-service-notifications", kwargs={"payment_service_id": service.pk})
    if settings.PUBLIC_BASE_URL:
        return settings.PUBLIC_BASE_URL.rstrip("/") + path
    return str(request.build_absolute_uri(path)) if request is not None else path


class PaymentServiceOutput(OutputSerializer):
    """Upstream's `PaymentService`; secret fields are left out of `fields`."""

    type = ConstantField("payment-service")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    payment_service_definition_id = serializers.CharField(source="definition_id")
    active = serializers.BooleanField()
    # The way of paying its definition takes (a PayPal service answers `paypal`).
    method = serializers.SerializerMethodField()
    display_name = serializers.CharField()
    position = serializers.IntegerField()
    status = ConstantField("created")
    accepted_currencies = serializers.ListField(child=serializers.CharField())
    accepted_countries = serializers.ListField(child=serializers.CharField())
    payment_method_tokenization_enabled = serializers.BooleanField()
    network_tokens_enabled = serializers.BooleanField()
    open_loop = serializers.BooleanField()
    settlement_reporting_enabled = serializers.BooleanField()
    # Required by the official SDK's model, though newer than the API document this server follows.
    refund_ingestion_enabled = ConstantField(False, schema={"type": "boolean"})
    three_d_secure_enabled = serializers.BooleanField()
    merchant_profile = ConstantField(None, schema={"type": "object", "nullable": True})
    webhook_url = serializers.SerializerMethodField()
    fields = serializers.SerializerMethodField(method_name="render_fields")  # type: ignore[assignment]
    reporting_fields = ConstantField([], schema={"type": "array", "items": {"type": "object"}})
    is_deleted = serializers.BooleanField()
    created_at = TimestampField()
    updated_at = TimestampField()

    @extend_schema_field({"type": "string", "enum": sorted({processor.method for processor in processors.PROCESSORS})})
    def get_method(self, service: PaymentService) -> str:
        return definition_method(service.definition_id)

    @extend_schema_field({"type": "string", "nullable": True})
    def get_webhook_url(self, service: PaymentService) -> str | None:
        return webhook_url(service, self.context.get("request"))

    @extend_schema_field(FieldOutput(many=True, allow_null=True))
    def render_fields(self, service: PaymentService) -> list[dict[str, str]] | None:
        request = self.context.get("request")
        if request is not None and request.query_params.get("include_fields") == "false":
            return None
        # Only the fields kept in clear: secret ones are sealed and never leave the server.
        return [{"key": key, "value": value} for key, value in sorted(service.fields.items())]


class DefinitionFieldOutput(OutputSerializer):
    """Upstream's `DefinitionField`."""

    key = serializers.CharField()
    display_name = serializers.CharField()
    required = serializers.BooleanField()  # type: ignore[assignment]
    format = serializers.CharField()
    secret = serializers.BooleanField()
    verifiable = serializers.BooleanField()


class DefinitionConfigurationOutput(OutputSerializer):
    """Upstream's `PaymentServiceConfiguration`: a card definition has no approval page and no cart rules."""

    approval_ui_target = ConstantField("any")
    approval_ui_height = ConstantField("0px")
    approval_ui_width = ConstantField("0px")
    cart_items_limit = ConstantField(0, schema={"type": "integer"})
    cart_items_required = ConstantField(False, schema={"type": "boolean"})
    cart_items_should_match_amount = ConstantField(False, schema={"type": "boolean"})


class PaymentServiceDefinitionOutput(OutputSerializer):
    """Upstream's `PaymentServiceDefinition`: a registered processor (`paymentservices.processors.seam.Processor`)
    as the API names its parts."""

    id = serializers.CharField()
    type = ConstantField("payment-service-definition")
    display_name = serializers.CharField()
    method = serializers.CharField()
    fields = DefinitionFieldOutput(many=True)  # type: ignore[assignment]
    # No processor here has reporting fields or an icon of its own, and each is integrated from the web.
    reporting_fields = ConstantField([], schema={"type": "array", "items": {"type": "object"}})
    supported_currencies = serializers.ListField(child=serializers.CharField())
    supported_countries = serializers.ListField(child=serializers.CharField())
    mode = serializers.CharField()
    icon_url = ConstantField(None, schema={"type": "string", "nullable": True})
    supported_features = serializers.DictField(source="features", child=serializers.BooleanField())
    required_checkout_fields = ConstantField([], schema={"type": "array", "items": {"type": "object"}})
    configuration = DefinitionConfigurationOutput(source="*")
    supported_integration_clients = ConstantField(
        ["web"], schema={"type": "array", "items": {"type": "string"}, "nullable": True}
    )


class PaymentServiceDefinitionsOutput(OutputSerializer):
    """A page of definitions: upstream's `PaymentServiceDefinitions`."""

    items = PaymentServiceDefinitionOutput(many=True)
    limit = serializers.IntegerField()
    next_cursor = serializers.CharField(allow_null=True)
    previous_cursor = serializers.CharField(allow_null=True)
