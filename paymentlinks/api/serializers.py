"""Payment link shapes, field for field as upstream's `PaymentLinkCreate` and `PaymentLink`."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from paymentlinks import branding
from paymentlinks.addresses import payment_link_page_url
from paymentlinks.models import PaymentLink, PaymentLinkStatus
from payments.choices import PaymentIntent, PaymentSource
from payments.rest.fields import (
    AmountField,
    CountryField,
    PaymentCurrencyField,
    StrictCharField,
    StrictSerializer,
    TimestampField,
    UnsupportedField,
    optional_text,
)
from payments.rest.outputs import ConstantField, OutputSerializer, StoredJsonField
from payments.shapes.addresses import BillingDetailsSerializer
from payments.shapes.order import CartItemSerializer, GuestBuyerSerializer, ShippingDetailsOutput
from payments.shapes.processor_data import StatementDescriptorSerializer


class _Checked(StrictCharField):
    """A branding value, checked by `paymentlinks.branding` (its one rule) after the string's own checks."""

    def __init__(self, clean: Any, **kwargs: Any) -> None:
        self.clean = clean
        kwargs.update(required=False, allow_null=True, trim_whitespace=False, min_length=1)
        super().__init__(**kwargs)

    def to_internal_value(self, data: object) -> str:
        value = super().to_internal_value(data)
        try:
            return str(self.clean(value))
        except branding.BrandingError as exc:
            raise serializers.ValidationError(str(exc)) from None


def _url() -> _Checked:
    return _Checked(branding.url_clean, max_length=branding.MAX_URL_LENGTH)


@extend_schema_field({"type": "object", "additionalProperties": {"type": "object", "nullable": True}})
class ConnectionOptionsField(serializers.DictField):
    """`{"<connector key>": {...options} | null}`, carried to the link's transaction, whose services check them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.DictField(allow_null=True), required=False, allow_null=True, **kwargs)


# A BCP 47 language tag as upstream shows them (`en`, `en-GB`, `pt-BR`): the page formats amounts with it.
_LOCALE = re.compile(r"[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8})*")


class PaymentLinkCreateInput(StrictSerializer):
    """Body of `POST /payment-links`."""

    amount = AmountField()
    currency = PaymentCurrencyField(min_length=3, max_length=3)
    country = CountryField(min_length=2, max_length=2)
    intent = serializers.ChoiceField(choices=PaymentIntent.choices, required=False)
    payment_source = serializers.ChoiceField(
        choices=[PaymentSource.ECOMMERCE],
        required=False,
        error_messages={"invalid_choice": "Not supported: a buyer paying on the link's page is an ecommerce payment."},
    )
    expires_at = TimestampField(required=False, allow_null=True)
    external_identifier = optional_text(200)
    statement_descriptor = StatementDescriptorSerializer(required=False, allow_null=True)
    locale = optional_text(50)
    merchant_name = optional_text(100)
    merchant_url = _url()
    merchant_banner_url = _url()
    merchant_color = _Checked(branding.color_clean, max_length=7)
    merchant_message = _Checked(branding.message_clean, max_length=255)
    merchant_terms_and_conditions_url = _url()
    merchant_favicon_url = _url()
    return_url = _url()
    cart_items = CartItemSerializer(many=True, required=False, allow_null=True)
    metadata = serializers.DictField(required=False, allow_null=True)
    buyer = GuestBuyerSerializer(required=False, allow_null=True)
    connection_options = ConnectionOptionsField()
    store = UnsupportedField(
        "a payment link's page does not store the buyer's card; it pays once.", accepts=False, json_type="boolean"
    )
    buyer_id = UnsupportedField(
        "a payment link is for a guest buyer (`buyer`): a link naming a stored buyer would let whoever holds it use "
        "their stored payment methods."
    )
    installment_count = UnsupportedField("installments are not offered.", json_type="integer")

    def validate_locale(self, value: str | None) -> str | None:
        if value is not None and not _LOCALE.fullmatch(value):
            raise serializers.ValidationError("Must be a language tag such as en, en-GB or pt-BR.")
        return value


class PaymentLinkBuyerOutput(OutputSerializer):
    """The upstream `TransactionBuyer` of a guest buyer: what the link was created with."""

    type = ConstantField("buyer")
    id = ConstantField(None, schema={"type": "string", "format": "uuid", "nullable": True})
    display_name = serializers.CharField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    billing_details = StoredJsonField(BillingDetailsSerializer(allow_null=True), allow_null=True)
    account_number = serializers.CharField(allow_null=True)


_BUYER = PaymentLinkBuyerOutput()
_SHIPPING_DETAILS = ShippingDetailsOutput()


class PaymentLinkOutput(OutputSerializer):
    """The upstream `PaymentLink`."""

    type = ConstantField("payment-link")
    id = serializers.UUIDField()
    url = serializers.SerializerMethodField()
    status = serializers.ChoiceField(source="shown_status", choices=PaymentLinkStatus.choices)
    expires_at = TimestampField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    statement_descriptor = StoredJsonField(StatementDescriptorSerializer(allow_null=True), allow_null=True)
    locale = serializers.CharField(allow_null=True)
    merchant_name = serializers.CharField(allow_null=True)
    merchant_url = serializers.CharField(allow_null=True)
    merchant_banner_url = serializers.CharField(allow_null=True)
    merchant_color = serializers.CharField(allow_null=True)
    merchant_message = serializers.CharField(allow_null=True)
    merchant_terms_and_conditions_url = serializers.CharField(allow_null=True)
    merchant_favicon_url = serializers.CharField(allow_null=True)
    amount = serializers.IntegerField()
    country = serializers.CharField()
    currency = serializers.CharField()
    intent = serializers.CharField()
    payment_source = serializers.CharField()
    return_url = serializers.CharField(allow_null=True)
    # Required by upstream, null allowed: a link without a cart answers null rather than leaving the field out.
    cart_items = StoredJsonField(CartItemSerializer(many=True, allow_null=True), allow_null=True)
    metadata = serializers.DictField(allow_null=True)
    buyer = serializers.SerializerMethodField()
    shipping_details = serializers.SerializerMethodField()
    connection_options = serializers.DictField(allow_null=True)
    store = ConstantField(False)
    buyer_id = ConstantField(None, schema={"type": "string", "format": "uuid", "nullable": True})
    installment_count = ConstantField(None, schema={"type": "integer", "nullable": True})
    created_at = TimestampField()
    updated_at = TimestampField()

    def get_url(self, link: PaymentLink) -> str:
        return payment_link_page_url(link, self.context.get("request"))

    @extend_schema_field(PaymentLinkBuyerOutput(allow_null=True))
    def get_buyer(self, link: PaymentLink) -> dict[str, Any] | None:
        return _BUYER.to_representation(link.buyer) if link.buyer else None

    @extend_schema_field(ShippingDetailsOutput(allow_null=True))
    def get_shipping_details(self, link: PaymentLink) -> dict[str, Any] | None:
        shipping = (link.buyer or {}).get("shipping_details")
        if not shipping:
            return None
        return _SHIPPING_DETAILS.to_representation({"id": None, "buyer_id": None, **shipping})
