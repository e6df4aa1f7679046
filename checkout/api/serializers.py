"""Checkout session and Secure Fields shapes, field for field as the upstream `CheckoutSession`,
`CheckoutSessionUpdate` and `CheckoutSessionSecureFields` schemas."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from checkout.models import CheckoutSession
from checkout.services import MAX_EXPIRES_IN, MIN_EXPIRES_IN
from payments.choices import PaymentIntent, PaymentSource
from payments.models import VaultedCard
from payments.rest.fields import (
    AmountField,
    CountryField,
    CurrencyField,
    StrictSerializer,
    TimestampField,
    optional_text,
)
from payments.rest.order import (
    AirlineSerializer,
    CartItemSerializer,
    GuestBuyerSerializer,
    StrictBooleanField,
    StrictTextField,
)
from payments.vault.fields import CardDetailsSerializer


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
    metadata = serializers.DictField(child=StrictTextField(allow_blank=True), required=False, allow_null=True)
    buyer = GuestBuyerSerializer(required=False, allow_null=True)
    airline = AirlineSerializer(required=False, allow_null=True)
    amount = AmountField(required=False, allow_null=True)
    currency = CurrencyField(required=False, allow_null=True, min_length=3, max_length=3)
    payment_service_id = serializers.UUIDField(required=False, allow_null=True)
    expires_in = ExpiresInField(required=False)
    country = CountryField(required=False, allow_null=True, min_length=2, max_length=2)
    is_subsequent_payment = StrictBooleanField(required=False, allow_null=True)
    merchant_initiated = StrictBooleanField(required=False, allow_null=True)
    payment_source = serializers.ChoiceField(choices=PaymentSource.values, required=False, allow_null=True)
    intent = serializers.ChoiceField(choices=PaymentIntent.values, required=False, allow_null=True)


class SecureFieldsCardInput(CardDetailsSerializer):
    """The `card` payment method of Secure Fields; `click-to-pay` and `id` are not offered here."""

    method = serializers.ChoiceField(choices=["card"])

    def to_internal_value(self, data: object) -> dict:
        # Decide the method first, so a wrong one gets one clear error instead of one per foreign field.
        if isinstance(data, dict) and "method" in data and data["method"] != "card":
            raise serializers.ValidationError({"method": ["Only the card method can be stored on a checkout session."]})
        return super().to_internal_value(data)


class SecureFieldsInput(StrictSerializer):
    """Body of `PUT|POST /checkout/sessions/{id}/fields`."""

    payment_method = SecureFieldsCardInput()
    postal_code = optional_text(50)


class CardSummaryDetailsOutput(serializers.Serializer):
    bin = serializers.CharField()
    card_type = serializers.SerializerMethodField()
    card_country = serializers.SerializerMethodField()
    card_issuer_name = serializers.SerializerMethodField()

    # The vault knows the BIN but has no BIN table: type, country and issuer are unknown, as the schema allows.
    def get_card_type(self, card: VaultedCard) -> str | None:
        return None

    def get_card_country(self, card: VaultedCard) -> str | None:
        return None

    def get_card_issuer_name(self, card: VaultedCard) -> str | None:
        return None


class CardSummaryOutput(serializers.Serializer):
    """What a session shows of its card: BIN, last 4, scheme and fingerprint; never the number or code."""

    type = serializers.SerializerMethodField()
    id = serializers.SerializerMethodField()
    method = serializers.SerializerMethodField()
    label = serializers.CharField(source="last4")
    scheme = serializers.CharField(allow_null=True)
    fingerprint = serializers.CharField()
    details = CardSummaryDetailsOutput(source="*")

    def get_type(self, card: VaultedCard) -> str:
        return "payment-method"

    def get_id(self, card: VaultedCard) -> str | None:
        # A card left through Secure Fields is not a stored payment method, so it has no payment method id.
        return None

    def get_method(self, card: VaultedCard) -> str:
        return "card"


class CheckoutSessionOutput(serializers.ModelSerializer):
    type = serializers.SerializerMethodField()
    expires_at = TimestampField()
    payment_method = CardSummaryOutput(source="card", allow_null=True)

    class Meta:
        model = CheckoutSession
        fields = [
            "type",
            "id",
            "expires_at",
            "cart_items",
            "metadata",
            "buyer",
            "airline",
            "amount",
            "currency",
            "payment_service_id",
            "payment_method",
        ]

    def get_type(self, session: CheckoutSession) -> str:
        return "checkout-session"
