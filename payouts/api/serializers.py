"""Payout input and output shapes, field for field as upstream's `PayoutCreate` and `PayoutSummary`."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from payments.rest.fields import (
    AmountField,
    PaymentCurrencyField,
    RequestSerializer,
    StrictCharField,
    StrictSerializer,
    TimestampField,
    UnsupportedField,
    method_input,
    optional_text,
)
from payments.rest.outputs import ConstantField, OutputSerializer, StoredJsonField
from payments.shapes.addresses import E164, AddressSerializer, BillingDetailsSerializer
from payments.shapes.card_outputs import MaskedCardOutput
from payments.shapes.cards import CardNumberField, ExpirationDateField
from payments.shapes.order import GuestBuyerSerializer
from paymentservices.processors import processor_get
from payouts.models import Payout, PayoutCategory, PayoutStatus
from payouts.requests import PayoutCard, PayoutCreateRequest, PayoutStoredCard


class PayoutCardInput(StrictSerializer):
    """`{"method": "card", number, expiration_date}`: a card given for this payout only (no security code: money goes
    to the card, nothing is taken from it)."""

    method = serializers.ChoiceField(choices=["card"])
    number = CardNumberField()
    expiration_date = ExpirationDateField()
    card_scheme = UnsupportedField("the scheme is read from the card's number.")
    external_identifier = UnsupportedField("a card given once is not stored, so it keeps no identifier.")

    def to_payment_method(self, data: dict[str, Any]) -> PayoutCard:
        expiry = data["expiration_date"]
        return PayoutCard(number=data["number"], expiration_month=expiry.month, expiration_year=expiry.year)


class PayoutStoredCardInput(StrictSerializer):
    """`{"method": "id", "id": ...}`: a stored payment method of the account."""

    method = serializers.ChoiceField(choices=["id"])
    id = serializers.UUIDField()

    def to_payment_method(self, data: dict[str, Any]) -> PayoutStoredCard:
        return PayoutStoredCard(id=data["id"])


PAYOUT_METHOD_INPUTS: dict[str, type[PayoutCardInput | PayoutStoredCardInput]] = {
    "card": PayoutCardInput,
    "id": PayoutStoredCardInput,
}


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="PayoutPaymentMethodCreate",
        serializers=dict(PAYOUT_METHOD_INPUTS),
        resource_type_field_name="method",
    )
)
class PayoutMethodField(serializers.Field):
    """The card the money goes to, chosen by `method`; validates into its request."""

    def to_internal_value(self, data: object) -> PayoutCard | PayoutStoredCard:
        serializer = method_input(data, PAYOUT_METHOD_INPUTS)
        serializer.is_valid(raise_exception=True)
        return serializer.to_payment_method(serializer.validated_data)

    def to_representation(self, value: object) -> None:
        return None


class PayoutMerchantInput(StrictSerializer):
    """Upstream's `PayoutMerchant`: who the money comes from."""

    name = StrictCharField(min_length=1, max_length=255)
    identification_number = StrictCharField(min_length=1, max_length=200)
    phone_number = serializers.RegexField(E164, error_messages={"invalid": "Must be an E.164 number."})
    url = serializers.URLField(max_length=2000)
    statement_descriptor = StrictCharField(min_length=5, max_length=22)
    merchant_category_code = StrictCharField(min_length=1, max_length=4)
    address = AddressSerializer(required=False, allow_null=True)


class PayoutCreateInput(RequestSerializer[PayoutCreateRequest]):
    """Upstream's `PayoutCreate`. `payment_service_id` may be left out (an extension): the first service of the
    account's routing order that can pay out is used (docs/payouts.md)."""

    amount = AmountField()
    currency = PaymentCurrencyField()
    payment_service_id = serializers.UUIDField(required=False, allow_null=True)
    payment_method = PayoutMethodField()
    category = serializers.ChoiceField(choices=PayoutCategory.choices, required=False, allow_null=True)
    external_identifier = optional_text(200)
    buyer_id = serializers.UUIDField(required=False, allow_null=True)
    buyer = GuestBuyerSerializer(required=False, allow_null=True)
    buyer_external_identifier = optional_text(200)
    merchant = PayoutMerchantInput(required=False, allow_null=True)
    connection_options = UnsupportedField(
        "no processor here reads payout connection options (upstream's only set is `checkout-card`'s).",
        json_type="object",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        named = [name for name in ("buyer_id", "buyer", "buyer_external_identifier") if attrs.get(name) is not None]
        if len(named) > 1:
            raise serializers.ValidationError(
                {named[1]: ["A payout names its buyer one way: buyer_id, buyer or buyer_external_identifier."]}
            )
        return attrs

    def to_request(self, data: dict[str, Any]) -> PayoutCreateRequest:
        merchant = data.get("merchant")
        return PayoutCreateRequest(
            amount=data["amount"],
            currency=data["currency"],
            payment_method=data["payment_method"],
            payment_service_id=data.get("payment_service_id"),
            category=data.get("category"),
            external_identifier=data.get("external_identifier"),
            buyer_id=data.get("buyer_id"),
            buyer_external_identifier=data.get("buyer_external_identifier"),
            guest_buyer=_plain(data.get("buyer")),
            merchant=_plain(merchant),
        )


def _plain(value: Any) -> Any:
    """Validated nested data as plain JSON values (what a JSON column keeps)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


class PayoutPaymentMethodOutput(MaskedCardOutput):
    """Upstream's `TransactionPaymentMethod` of the card paid out to, masked: never the number."""

    id = serializers.UUIDField(
        source="payment_method_id", allow_null=True, help_text="The stored payment method paid out to, if any."
    )


class PayoutPaymentServiceOutput(OutputSerializer):
    """Upstream's `PayoutPaymentService`."""

    type = ConstantField("payment-service")
    id = serializers.UUIDField()
    method = ConstantField("card")
    payment_service_definition_id = serializers.CharField(source="definition_id")
    display_name = serializers.SerializerMethodField()

    def get_display_name(self, service: Any) -> str:
        processor = processor_get(service.definition_id)
        return str(service.display_name or (processor.display_name if processor else service.definition_id))


class PayoutBuyerOutput(OutputSerializer):
    """Upstream's `TransactionBuyer`: the buyer as it was when the payout was made (or a guest)."""

    type = ConstantField("buyer")
    id = serializers.CharField(allow_null=True)
    display_name = serializers.CharField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    billing_details = StoredJsonField(BillingDetailsSerializer(allow_null=True), allow_null=True)
    account_number = serializers.CharField(allow_null=True)


class PayoutMerchantOutput(OutputSerializer):
    """Upstream's `PayoutMerchantSummary`, as the merchant was sent."""

    type = ConstantField("merchant")
    name = serializers.CharField()
    identification_number = serializers.CharField()
    phone_number = serializers.CharField()
    url = serializers.CharField()
    statement_descriptor = serializers.CharField(allow_null=True)
    merchant_category_code = serializers.CharField()
    address = StoredJsonField(AddressSerializer(allow_null=True), allow_null=True)


_BUYER = PayoutBuyerOutput()
_MERCHANT = PayoutMerchantOutput()


class PayoutOutput(OutputSerializer):
    """Upstream's `PayoutSummary`: what `POST /payouts`, the list and the read answer."""

    type = ConstantField("payout")
    id = serializers.UUIDField()
    amount = serializers.IntegerField()
    currency = serializers.CharField()
    status = serializers.ChoiceField(choices=PayoutStatus.choices)
    category = serializers.CharField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    merchant_account_id = serializers.CharField()
    payment_service_payout_id = serializers.CharField(allow_null=True)
    payment_method = PayoutPaymentMethodOutput(source="*")
    payment_service = PayoutPaymentServiceOutput()
    buyer = serializers.SerializerMethodField()
    merchant = serializers.SerializerMethodField()
    created_at = TimestampField()
    updated_at = TimestampField()

    @extend_schema_field(PayoutBuyerOutput(allow_null=True))
    def get_buyer(self, payout: Payout) -> dict[str, Any] | None:
        return _BUYER.to_representation(payout.buyer_details) if payout.buyer_details else None

    @extend_schema_field(PayoutMerchantOutput(allow_null=True))
    def get_merchant(self, payout: Payout) -> dict[str, Any] | None:
        if not payout.merchant:
            return None
        return _MERCHANT.to_representation({"statement_descriptor": None, "address": None, **payout.merchant})
