"""Payment method input and output shapes, field for field as the upstream schemas.

`POST /payment-methods` takes a card (`method: card`) or the card a checkout session holds
(`method: checkout-session`), for a buyer named by id or external identifier, or for none (as upstream allows).
Outputs never carry the number or a security code: the label is the last 4 digits, `details.bin` the first 6.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from buyers.outputs import BuyerOutput
from paymentmethods.models import PaymentMethodStatus
from paymentmethods.selectors import SORT_FIELDS
from payments.rest.fields import (
    CountryField,
    CurrencyField,
    StrictSerializer,
    TimestampField,
    UnsupportedField,
    optional_text,
)
from payments.rest.outputs import NULL_STRING, ConstantField, OutputSerializer
from payments.shapes.cards import CardDetailsSerializer, ExpirationDateField
from payments.shapes.processor_data import CARD_SCHEMES

# The ways to store a method this server takes, by `method`.
STORE_METHODS = ["card", "checkout-session"]


class _ForBuyer(StrictSerializer):
    """The buyer a method is stored for (one of the two, or neither: a method of no buyer), and the merchant's
    reference for it."""

    method = serializers.ChoiceField(choices=STORE_METHODS)
    buyer_id = serializers.UUIDField(required=False, allow_null=True)
    buyer_external_identifier = optional_text(200)
    external_identifier = optional_text(200)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if attrs.get("buyer_id") is not None and attrs.get("buyer_external_identifier") is not None:
            raise serializers.ValidationError(
                {"buyer_external_identifier": ["A payment method is stored for one buyer: give only one of the two."]}
            )
        return attrs


class CardPaymentMethodCreateInput(_ForBuyer, CardDetailsSerializer):
    """`{"method": "card", number, expiration_date, security_code?}`: a security code is checked, never stored."""

    card_type = UnsupportedField("the card's type is not declared by the client; no processor here reads it.")


class CheckoutSessionPaymentMethodCreateInput(_ForBuyer):
    """`{"method": "checkout-session", "id": ...}`: keep the card Secure Fields stored on that session."""

    id = serializers.UUIDField()


PAYMENT_METHOD_CREATE_INPUTS: dict[str, type[_ForBuyer]] = dict(
    zip(STORE_METHODS, [CardPaymentMethodCreateInput, CheckoutSessionPaymentMethodCreateInput], strict=True)
)
PaymentMethodCreateInput = PolymorphicProxySerializer(
    component_name="PaymentMethodCreate",
    serializers=dict(PAYMENT_METHOD_CREATE_INPUTS),
    resource_type_field_name="method",
)


def payment_method_create_input(data: object) -> _ForBuyer:
    """The input serializer for the body's `method`; an unsupported method is a 400 naming `/method`."""
    method = data.get("method") if isinstance(data, dict) else None
    serializer_class = PAYMENT_METHOD_CREATE_INPUTS.get(method) if isinstance(method, str) else None
    if serializer_class is None:
        raise serializers.ValidationError(
            {"method": [f"Must be one of: {', '.join(STORE_METHODS)}."]}, code="unsupported_method"
        )
    return serializer_class(data=data)


class PaymentMethodUpdateInput(StrictSerializer):
    """Body of `PUT /payment-methods/{id}`: a renewed card's expiry date and the stored-credential references."""

    expiration_date = ExpirationDateField(required=False, allow_null=True)
    scheme_transaction_id = optional_text(100)
    scheme_transaction_id_scheme = serializers.ChoiceField(choices=CARD_SCHEMES, required=False, allow_null=True)
    transaction_link_id = optional_text(100)

    def to_changes(self, data: dict[str, Any]) -> dict[str, Any]:
        """The service's changes: a null expiry date changes nothing (a card always has one)."""
        changes = {name: value for name, value in data.items() if name != "expiration_date"}
        if data.get("expiration_date") is not None:
            changes["expiration"] = tuple(data["expiration_date"])
        return changes


class BuyerPaymentMethodsQuery(serializers.Serializer):
    """Query string of `GET /buyers/payment-methods`: the buyer (by id or external identifier; an embed token's pinned
    buyer otherwise), sorting, and the country and currency filters."""

    buyer_id = serializers.UUIDField(required=False)
    buyer_external_identifier = serializers.CharField(required=False, min_length=1, max_length=200)
    sort_by = serializers.ChoiceField(choices=SORT_FIELDS, required=False)
    order_by = serializers.ChoiceField(choices=["asc", "desc"], required=False, default="desc")
    # Cards here are usable in every country and currency (upstream's null), so these filters keep every card.
    country = CountryField(required=False, min_length=2, max_length=2)
    currency = CurrencyField(required=False, min_length=3, max_length=3)


class PaymentMethodDetailsOutput(OutputSerializer):
    """The upstream `PaymentMethodDetailsCard`: the BIN, and the card's type and issuer as the BIN table said when the
    card was stored (null where it does not say; docs/card-details.md)."""

    bin = serializers.CharField(source="card.bin")
    card_type = serializers.CharField(source="card.card_type", allow_null=True)
    card_issuer_name = serializers.CharField(source="card.issuer_name", allow_null=True)


class PaymentMethodSummaryOutput(OutputSerializer):
    """The upstream `PaymentMethodSummary`: a stored card, masked."""

    type = ConstantField("payment-method")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    method = ConstantField("card")
    mode = ConstantField("card")
    scheme = serializers.CharField(source="card.scheme", allow_null=True)
    # A field named like Field.label: DRF's metaclass moves declared fields off the class, so nothing is shadowed.
    label = serializers.CharField(source="card.last4", help_text="The card's last 4 digits.")  # type: ignore[assignment]
    expiration_date = serializers.CharField(help_text="MM/YY")
    fingerprint = serializers.CharField()
    details = PaymentMethodDetailsOutput(source="*")
    # The card's issuing country from the BIN table (null where it does not say); usable in any currency; nothing to
    # approve.
    country = serializers.CharField(source="card.country", allow_null=True)
    currency = ConstantField(None, schema=NULL_STRING)
    approval_url = ConstantField(None, schema=NULL_STRING)
    additional_schemes = ConstantField(None, schema={"type": "array", "items": {"type": "string"}, "nullable": True})
    last_replaced_at = ConstantField(None, schema=NULL_STRING)
    has_replacement = serializers.BooleanField()
    usage_count = serializers.IntegerField()
    last_used_at = TimestampField(allow_null=True)
    cit_usage_count = serializers.IntegerField()
    cit_last_used_at = TimestampField(allow_null=True)
    scheme_transaction_id = serializers.CharField(allow_null=True)
    scheme_transaction_id_scheme = serializers.CharField(allow_null=True)
    transaction_link_id = serializers.CharField(allow_null=True)


class PaymentMethodOutput(PaymentMethodSummaryOutput):
    """The upstream `PaymentMethod`: the summary, its buyer (null for a method stored with none), reference, status
    and times."""

    buyer = BuyerOutput(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=PaymentMethodStatus.choices)
    created_at = TimestampField()
    updated_at = TimestampField()


class PaymentMethodSummariesOutput(OutputSerializer):
    """The upstream `PaymentMethodSummaries`: a buyer's methods, unpaginated."""

    items = PaymentMethodSummaryOutput(many=True)
