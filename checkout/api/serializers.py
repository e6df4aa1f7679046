"""Checkout session and Secure Fields shapes, field for field as the upstream `CheckoutSession`,
`CheckoutSessionUpdate` and `CheckoutSessionSecureFields` schemas."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from checkout.services import MAX_EXPIRES_IN, MIN_EXPIRES_IN
from payments.choices import PaymentIntent, PaymentSource
from payments.rest.fields import (
    AmountField,
    CountryField,
    PaymentCurrencyField,
    StrictBooleanField,
    StrictCharField,
    StrictSerializer,
    TimestampField,
    UnsupportedField,
    method_input,
    optional_text,
    validated,
)
from payments.rest.outputs import NULL_STRING, ConstantField, OutputSerializer, StoredJsonField
from payments.shapes.cards import BinField, CardDetailsSerializer, SecurityCodeField
from payments.shapes.order import AirlineSerializer, CartItemSerializer, GuestBuyerSerializer


@extend_schema_field({"type": "number", "minimum": MIN_EXPIRES_IN, "maximum": MAX_EXPIRES_IN})
class ExpiresInField(serializers.Field):
    """Seconds, 3600..86400. The SDK sends a float such as 3600.0: whole floats pass, 3600.5 does not."""

    default_error_messages = {
        "invalid": "Must be a number of seconds.",
        "not_whole": "Must be a whole number of seconds.",
        "range": f"Must be between {MIN_EXPIRES_IN} and {MAX_EXPIRES_IN} seconds.",
    }

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        if isinstance(data, float) and not data.is_integer():
            self.fail("not_whole")
        if not MIN_EXPIRES_IN <= data <= MAX_EXPIRES_IN:
            self.fail("range")
        return int(data)

    def to_representation(self, value: int) -> int:
        return value


class CheckoutSessionInput(StrictSerializer):
    """Body of `POST /checkout/sessions` (optional) and `PUT /checkout/sessions/{id}`: every field optional."""

    cart_items = CartItemSerializer(many=True, required=False, allow_null=True)
    metadata = serializers.DictField(child=StrictCharField(allow_blank=True), required=False, allow_null=True)
    buyer = GuestBuyerSerializer(required=False, allow_null=True)
    airline = AirlineSerializer(required=False, allow_null=True)
    amount = AmountField(required=False, allow_null=True)
    currency = PaymentCurrencyField(required=False, allow_null=True, min_length=3, max_length=3)
    payment_service_id = UnsupportedField(
        "a checkout session does not choose the payment service: send payment_service_id with the transaction."
    )
    expires_in = ExpiresInField(required=False)
    country = CountryField(required=False, allow_null=True, min_length=2, max_length=2)
    is_subsequent_payment = StrictBooleanField(required=False, allow_null=True)
    merchant_initiated = StrictBooleanField(required=False, allow_null=True)
    payment_source = serializers.ChoiceField(choices=PaymentSource.choices, required=False, allow_null=True)
    intent = serializers.ChoiceField(choices=PaymentIntent.choices, required=False, allow_null=True)


# The ways Secure Fields leaves something to pay with, by `method`; upstream's `click-to-pay` is not offered here.
SECURE_FIELDS_METHODS = ["card", "id"]


class SecureFieldsCardInput(CardDetailsSerializer):
    """The `card` payment method of Secure Fields: a card's number, expiry and security code."""

    method = serializers.ChoiceField(choices=SECURE_FIELDS_METHODS)


class SecureFieldsStoredMethodInput(StrictSerializer):
    """The `id` payment method of Secure Fields: a stored payment method of the session's account, and the security
    code the buyer typed for it (its length for the card's scheme is checked once the method is found)."""

    method = serializers.ChoiceField(choices=SECURE_FIELDS_METHODS)
    id = serializers.UUIDField()
    security_code = SecurityCodeField(required=False, allow_null=True)


SECURE_FIELDS_INPUTS: dict[str, type[StrictSerializer]] = {
    "card": SecureFieldsCardInput,
    "id": SecureFieldsStoredMethodInput,
}


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="CheckoutSessionFieldsPaymentMethod",
        serializers=dict(SECURE_FIELDS_INPUTS),  # a copy typed as drf-spectacular's (invariant) dict of serializers
        resource_type_field_name="method",
    )
)
class SecureFieldsPaymentMethodField(serializers.Field):
    """A card, or a stored payment method, chosen by `method` before anything else is read, so a wrong method gets
    one clear error instead of one per foreign field."""

    def to_internal_value(self, data: object) -> dict[str, Any]:
        return validated(method_input(data, SECURE_FIELDS_INPUTS))

    def to_representation(self, value: object) -> None:
        return None


class SecureFieldsInput(StrictSerializer):
    """Body of `PUT|POST /checkout/sessions/{id}/fields`."""

    payment_method = SecureFieldsPaymentMethodField()
    postal_code = optional_text(50)


class CardSummaryDetailsOutput(OutputSerializer):
    """The card's BIN, and its type, issuing country and issuer as the BIN table said when the vault stored it (null
    where the table does not say; docs/card-details.md)."""

    bin = serializers.CharField()
    card_type = serializers.CharField(allow_null=True)
    card_country = serializers.CharField(source="country", allow_null=True)
    card_issuer_name = serializers.CharField(source="issuer_name", allow_null=True)


class CardSummaryOutput(OutputSerializer):
    """What a session shows of what it holds (`checkout.models.HeldPaymentMethod`): the card's BIN, last 4, scheme and
    fingerprint, never the number or code, and the stored payment method's id when it holds one."""

    type = ConstantField("payment-method")
    # A card left through Secure Fields is not a stored payment method, so it has no payment method id.
    id = serializers.UUIDField(allow_null=True)
    method = ConstantField("card")
    # A field named like Field.label: DRF's metaclass moves declared fields off the class, so nothing is shadowed.
    label = serializers.CharField(source="card.last4")  # type: ignore[assignment]
    scheme = serializers.CharField(source="card.scheme", allow_null=True)
    fingerprint = serializers.CharField(source="card.fingerprint")
    details = CardSummaryDetailsOutput(source="card")


class CheckoutSessionOutput(OutputSerializer):
    """The upstream `CheckoutSession`."""

    type = ConstantField("checkout-session")
    id = serializers.UUIDField()
    expires_at = TimestampField()
    cart_items = StoredJsonField(CartItemSerializer(many=True, allow_null=True), allow_null=True)
    metadata = serializers.DictField(child=serializers.CharField(), allow_null=True)
    buyer = StoredJsonField(GuestBuyerSerializer(allow_null=True), allow_null=True)
    airline = StoredJsonField(AirlineSerializer(allow_null=True), allow_null=True)
    amount = serializers.IntegerField(allow_null=True)
    currency = serializers.CharField(allow_null=True)
    payment_service_id = serializers.UUIDField(allow_null=True)
    payment_method = CardSummaryOutput(source="held_payment_method", allow_null=True)


class CheckoutSessionCardDetailsInput(StrictSerializer):
    """Body of `POST /checkout/sessions/{id}/card-details`: the first 6 to 8 digits of the card the buyer types."""

    bin = BinField()


class CheckoutSessionCardDetailsOutput(OutputSerializer):
    """The upstream `CheckoutSessionCardDetails`: what the BIN table says of the card (docs/card-details.md)."""

    bin = serializers.CharField()
    card_type = serializers.CharField(allow_null=True)
    scheme = serializers.CharField(allow_null=True)
    scheme_icon_url = ConstantField(None, schema=NULL_STRING)
    additional_schemes = ConstantField([], schema={"type": "array", "items": {"type": "string"}})
