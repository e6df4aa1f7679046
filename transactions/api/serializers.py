"""Transaction, refund and action shapes, field for field as the upstream schemas.

Input serializers validate every field this server implements. Fields the upstream request schema defines
but this server does not act on are accepted and ignored (`ignored_fields`); any other field is a 400,
so a typo never passes for an absent value.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from payments.choices import PaymentIntent, PaymentSource
from payments.rest.fields import (
    AmountField,
    CountryField,
    CurrencyField,
    StrictCharField,
    TimestampField,
    optional_text,
)
from payments.rest.order import AirlineSerializer, CartItemSerializer, GuestBuyerSerializer, StrictBooleanField
from payments.vault.fields import CardDetailsSerializer
from transactions.models import (
    GiftCardRedemption,
    Refund,
    RefundTargetType,
    Transaction,
    TransactionStatus,
)

MAX_GIFT_CARDS = 10
# `PaymentMethodField` picks the serializer by `method`; both list every method so the schema has one enum.
PAYMENT_METHODS = ["card", "checkout-session"]
MAX_METADATA_KEYS = 20
MAX_METADATA_KEY_LENGTH = 40
MAX_METADATA_VALUE_LENGTH = 500


# --- building blocks -----------------------------------------------------------------------------------


class ReferenceFieldsMixin:
    """Refuse fields that are neither declared nor listed in `ignored_fields` (upstream fields not acted on)."""

    ignored_fields: frozenset[str] = frozenset()

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            return super().to_internal_value(data)
        unknown = sorted(set(data) - set(self.fields) - self.ignored_fields)
        errors: dict[str, Any] = {name: ["Unknown field."] for name in unknown}
        try:
            value = super().to_internal_value({k: v for k, v in data.items() if k not in self.ignored_fields})
        except serializers.ValidationError as exc:
            errors.update(exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail})
        if errors:
            raise serializers.ValidationError(errors)
        return value


class InputSerializer(ReferenceFieldsMixin, serializers.Serializer):
    """A request body: declared fields validated, upstream-only fields ignored, anything else refused."""


class MetadataField(serializers.DictField):
    """Flat string key/value pairs, at most 20, keys up to 40 characters and values up to 500."""

    def __init__(self, **kwargs) -> None:
        super().__init__(child=StrictCharField(max_length=MAX_METADATA_VALUE_LENGTH, allow_blank=True), **kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if len(value) > MAX_METADATA_KEYS:
            raise serializers.ValidationError(f"At most {MAX_METADATA_KEYS} keys.")
        for key in value:
            if not 1 <= len(key) <= MAX_METADATA_KEY_LENGTH:
                raise serializers.ValidationError(f"Keys must be 1 to {MAX_METADATA_KEY_LENGTH} characters long.")
        return value


# --- POST /transactions --------------------------------------------------------------------------------


class CardPaymentMethodInput(ReferenceFieldsMixin, CardDetailsSerializer):
    """`{"method": "card", number, expiration_date, security_code}`; the card data is never echoed."""

    ignored_fields = frozenset(
        {"buyer_external_identifier", "buyer_id", "external_identifier", "card_type", "redirect_url"}
    )
    method = serializers.ChoiceField(choices=PAYMENT_METHODS)


class CheckoutSessionPaymentMethodInput(InputSerializer):
    """`{"method": "checkout-session", "id": ...}`: the card stored on that session."""

    ignored_fields = frozenset({"external_identifier", "buyer_id", "buyer_external_identifier", "redirect_url"})
    method = serializers.ChoiceField(choices=PAYMENT_METHODS)
    id = serializers.UUIDField()


_PAYMENT_METHODS = dict(zip(PAYMENT_METHODS, [CardPaymentMethodInput, CheckoutSessionPaymentMethodInput], strict=True))


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="TransactionPaymentMethodCreate",
        serializers={"card": CardPaymentMethodInput, "checkout-session": CheckoutSessionPaymentMethodInput},
        resource_type_field_name="method",
    )
)
class PaymentMethodField(serializers.Field):
    """One of the payment methods this server processes, chosen by `method`."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("Must be an object.")
        method = data.get("method")
        serializer_class = _PAYMENT_METHODS.get(method)
        if serializer_class is None:
            raise serializers.ValidationError(
                {"method": [f"Must be one of: {', '.join(_PAYMENT_METHODS)}."]}, code="unsupported_method"
            )
        serializer = serializer_class(data=data)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def to_representation(self, value):
        return None


class GiftCardInput(InputSerializer):
    """`{number, pin, amount}` for a card of the program, or `{id, amount}` for a stored gift card."""

    id = serializers.UUIDField(required=False)
    number = serializers.RegexField(
        r"^[0-9]{16,19}$", required=False, error_messages={"invalid": "Must be 16 to 19 digits."}
    )
    pin = StrictCharField(required=False, min_length=1, max_length=32, trim_whitespace=False)
    amount = AmountField(min_value=1)

    def validate(self, attrs: dict) -> dict:
        by_id = "id" in attrs
        by_number = "number" in attrs or "pin" in attrs
        if by_id == by_number:
            raise serializers.ValidationError("Give either id, or number and pin.")
        if by_number and not ("number" in attrs and "pin" in attrs):
            missing = "pin" if "number" in attrs else "number"
            raise serializers.ValidationError({missing: ["This field is required with the other."]})
        return attrs


class TransactionCreateInput(InputSerializer):
    """Body of `POST /transactions`."""

    ignored_fields = frozenset(
        {
            "three_d_secure_data",
            "three_d_secure",
            "description",
            "statement_descriptor",
            "previous_scheme_transaction_id",
            "previous_transaction_link_id",
            "browser_info",
            "shipping_details_id",
            "connection_options",
            "anti_fraud_fingerprint",
            "payment_service_id",
            "recipient",
            "installment_count",
            "tax_amount",
            "merchant_tax_id",
            "purchase_order_number",
            "customer_reference_number",
            "amount_includes_tax",
            "supplier_order_number",
            "duty_amount",
            "shipping_amount",
            "integration_client",
            "approval_expires_at",
            "is_amount_estimated",  # sent by the SDK's model, not in the published schema
        }
    )
    amount = AmountField()
    currency = CurrencyField(min_length=3, max_length=3)
    country = CountryField(required=False, allow_null=True, min_length=2, max_length=2)
    intent = serializers.ChoiceField(choices=PaymentIntent.choices, default=PaymentIntent.AUTHORIZE)
    payment_method = PaymentMethodField(required=False, allow_null=True)
    gift_cards = serializers.ListField(
        child=GiftCardInput(), required=False, allow_null=True, allow_empty=True, max_length=MAX_GIFT_CARDS
    )
    buyer = GuestBuyerSerializer(required=False, allow_null=True)
    buyer_id = serializers.UUIDField(required=False, allow_null=True)
    buyer_external_identifier = optional_text(200)
    external_identifier = optional_text(200)
    metadata = MetadataField(required=False, allow_null=True)
    cart_items = CartItemSerializer(many=True, required=False, allow_null=True)
    airline = AirlineSerializer(required=False, allow_null=True)
    payment_source = serializers.ChoiceField(choices=PaymentSource.choices, default=PaymentSource.ECOMMERCE)
    store = StrictBooleanField(default=False)
    is_subsequent_payment = StrictBooleanField(default=False)
    merchant_initiated = StrictBooleanField(default=False)
    async_capture = StrictBooleanField(default=False)
    account_funding_transaction = StrictBooleanField(default=False)
    allow_partial_authorization = StrictBooleanField(default=False)

    def validate_store(self, value: bool) -> bool:
        if value:
            raise serializers.ValidationError("Storing payment methods is not supported: send store false.")
        return value

    def validate(self, attrs: dict) -> dict:
        named = [name for name in ("buyer_id", "buyer_external_identifier", "buyer") if attrs.get(name) is not None]
        if len(named) > 1:
            raise serializers.ValidationError({named[1]: [f"Give only one of {', '.join(named)}."]})
        if attrs.get("payment_method") is None and not attrs.get("gift_cards"):
            raise serializers.ValidationError({"payment_method": ["A payment method or gift cards are required."]})
        return attrs


# --- PUT, capture, refunds --------------------------------------------------------------------------------

_MANUAL_FIELDS = ("status", "amount", "authorized_amount", "captured_amount", "payment_service_transaction_id")


class TransactionUpdateInput(InputSerializer):
    """Body of `PUT /transactions/{id}`: only `external_identifier` and `metadata` change here."""

    ignored_fields = frozenset({"connection_options"})
    external_identifier = optional_text(200)
    metadata = MetadataField(required=False, allow_null=True)

    def to_internal_value(self, data):
        if isinstance(data, dict):
            manual = [name for name in _MANUAL_FIELDS if name in data]
            if manual:
                raise serializers.ValidationError(
                    {name: ["Changes only through capture, void and refunds."] for name in manual}
                )
        return super().to_internal_value(data)


class TransactionCaptureInput(InputSerializer):
    """Body of `POST /transactions/{id}/capture`."""

    ignored_fields = frozenset({"airline", "cart_items", "tracking"})
    amount = AmountField(min_value=1, required=False, allow_null=True)
    final = StrictBooleanField(default=True)
    external_identifier = optional_text(200)
    reauthorize_if_authorization_expired = StrictBooleanField(default=False)

    def validate_final(self, value: bool) -> bool:
        if not value:
            raise serializers.ValidationError("Multiple captures are not supported: send final true.")
        return value


class RefundCreateInput(InputSerializer):
    """Body of `POST /transactions/{id}/refunds`."""

    amount = AmountField(min_value=1, required=False, allow_null=True)
    target_type = serializers.ChoiceField(choices=RefundTargetType.choices, default=RefundTargetType.PAYMENT_METHOD)
    target_id = serializers.UUIDField(required=False, allow_null=True)
    reason = optional_text(500)
    external_identifier = optional_text(200)


class RefundAllInput(InputSerializer):
    """Body of `POST /transactions/{id}/refunds/all` (optional)."""

    reason = optional_text(500)
    external_identifier = optional_text(200)


# --- outputs --------------------------------------------------------------------------------------------


class GiftCardRedemptionOutput(serializers.ModelSerializer):
    type = serializers.SerializerMethodField()
    gift_card_service_redemption_id = serializers.SerializerMethodField()
    gift_card = serializers.SerializerMethodField()

    class Meta:
        model = GiftCardRedemption
        fields = [
            "type",
            "id",
            "status",
            "amount",
            "refunded_amount",
            "gift_card_service_redemption_id",
            "error_code",
            "raw_error_code",
            "raw_error_message",
            "gift_card",
        ]

    def get_type(self, obj) -> str:
        return "gift-card-redemption"

    def get_gift_card_service_redemption_id(self, obj) -> str | None:
        return None

    def get_gift_card(self, obj: GiftCardRedemption) -> dict:
        return {
            "type": "gift-card",
            "id": str(obj.gift_card_id) if obj.gift_card_id else None,
            "bin": obj.bin,
            "sub_bin": obj.sub_bin,
            "last4": obj.last4,
        }


_PENDING = {TransactionStatus.PROCESSING, TransactionStatus.BUYER_APPROVAL_PENDING}
_REFUSED = {TransactionStatus.AUTHORIZATION_DECLINED, TransactionStatus.AUTHORIZATION_FAILED}


def intent_outcome(txn: Transaction) -> str:
    """Whether what the transaction was created to do (authorize, or capture) happened."""
    if txn.status in _PENDING:
        return "pending"
    if txn.status in _REFUSED:
        return "failed"
    done = txn.captured_at if txn.intent == PaymentIntent.CAPTURE else txn.authorized_at
    return "succeeded" if done else "failed"


class TransactionOutput(serializers.Serializer):
    """The upstream `Transaction` (lists use it too: it is a superset of `TransactionSummary`)."""

    def to_representation(self, txn: Transaction) -> dict:
        redemptions = list(txn.gift_card_redemptions.all())
        timestamp = TimestampField().to_representation
        return {
            "type": "transaction",
            "id": str(txn.pk),
            "reconciliation_id": txn.reconciliation_id,
            "merchant_account_id": txn.merchant_account_id,
            "currency": txn.currency,
            "amount": txn.amount,
            "status": txn.status,
            "authorized_amount": txn.authorized_amount,
            "captured_amount": txn.captured_amount,
            "refunded_amount": txn.refunded_amount,
            "settled_currency": None,
            "settled_amount": 0,
            "settled": False,
            "country": txn.country,
            "external_identifier": txn.external_identifier,
            "intent": txn.intent,
            "payment_method": self._payment_method(txn),
            "method": txn.method,
            "instrument_type": "pan" if txn.method == "card" else None,
            "error_code": txn.error_code,
            "payment_service": None,
            "pending_review": False,
            "buyer": self._buyer(txn),
            "raw_response_code": txn.raw_response_code,
            "raw_response_description": txn.raw_response_description,
            "shipping_details": self._shipping_details(txn),
            "checkout_session_id": str(txn.checkout_session_id) if txn.checkout_session_id else None,
            "gift_card_redemptions": GiftCardRedemptionOutput(redemptions, many=True).data,
            "gift_card_service": None,
            "created_at": timestamp(txn.created_at),
            "updated_at": timestamp(txn.updated_at),
            "disputed": False,
            "reauthorized_from_transaction_id": None,
            "cvv_response_code": txn.cvv_response_code,
            "airline": txn.airline,
            "payment_source": txn.payment_source,
            "merchant_initiated": txn.merchant_initiated,
            "is_subsequent_payment": txn.is_subsequent_payment,
            "cart_items": txn.cart_items,
            "payment_service_transaction_id": txn.payment_service_transaction_id,
            "additional_identifiers": {},
            "metadata": txn.metadata,
            "authorized_at": timestamp(txn.authorized_at),
            "captured_at": timestamp(txn.captured_at),
            "voided_at": timestamp(txn.voided_at),
            "canceled_at": timestamp(txn.canceled_at),
            "intent_outcome": intent_outcome(txn),
            # Paid with more than one instrument (gift cards and/or the payment method).
            "multi_tender": len(redemptions) + (txn.method == "card") > 1,
            "account_funding_transaction": txn.account_funding_transaction,
        }

    @staticmethod
    def _payment_method(txn: Transaction) -> dict | None:
        if txn.method != "card":
            return None
        return {
            "type": "payment-method",
            "method": "card",
            "mode": "card",
            "scheme": txn.card_scheme,
            "label": txn.card_last4,
            "expiration_date": txn.card_expiration_date,
            "fingerprint": txn.card_fingerprint,
            "details": {"bin": txn.card_bin, "card_type": None, "card_issuer_name": None},
            "id": None,
            "approval_url": None,
            "country": None,
            "currency": None,
            "external_identifier": None,
        }

    @staticmethod
    def _shipping_details(txn: Transaction) -> dict | None:
        if not txn.shipping_details:
            return None
        return {"type": "shipping-details", "id": None, "buyer_id": None, **txn.shipping_details}

    @staticmethod
    def _buyer(txn: Transaction) -> dict | None:
        if not txn.buyer_details:
            return None
        return {"type": "buyer", **txn.buyer_details}


class RefundOutput(serializers.Serializer):
    """The upstream `Refund`."""

    def to_representation(self, refund: Refund) -> dict:
        timestamp = TimestampField().to_representation
        txn = refund.transaction
        return {
            "type": "refund",
            "id": str(refund.pk),
            "transaction_id": str(refund.transaction_id),
            "payment_service_refund_id": refund.payment_service_refund_id,
            "status": refund.status,
            "currency": refund.currency,
            "amount": refund.amount,
            "reason": refund.reason,
            "target_type": refund.target_type,
            "target_id": str(refund.redemption_id) if refund.redemption_id else None,
            "reconciliation_id": refund.reconciliation_id,
            "external_identifier": refund.external_identifier,
            "transaction_reconciliation_id": txn.reconciliation_id,
            "transaction_external_identifier": txn.external_identifier,
            "created_at": timestamp(refund.created_at),
            "updated_at": timestamp(refund.updated_at),
            "creator": None,
            "error_code": refund.error_code,
            "raw_response_code": refund.raw_response_code,
            "raw_response_description": refund.raw_response_description,
            "settled_currency": None,
            "settled_amount": 0,
            "settled": False,
        }
