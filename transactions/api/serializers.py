"""Transaction, refund and action shapes, field for field as the upstream schemas.

Input serializers declare every field of the upstream request schema: each one is acted on, or is an
`UnsupportedField` that refuses any value but the one asking for nothing; any other field is a 400, so a typo
never passes for an absent value. `TransactionCreateInput` turns a valid body into the service's
`TransactionRequest`. Output serializers declare every field they render.
"""

from __future__ import annotations

import uuid
from dataclasses import fields as dataclass_fields
from typing import Any

from django.db.models import prefetch_related_objects
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from payments.choices import PaymentIntent, PaymentSource
from payments.connectors import PurchaseDetails
from payments.rest.authorization import (
    BrowserInfoSerializer,
    RecipientSerializer,
    StatementDescriptorSerializer,
    ThreeDSecureDataSerializer,
)
from payments.rest.cards import CardDetailsSerializer, SecurityCodeField
from payments.rest.fields import (
    AmountField,
    BillingDetailsSerializer,
    CountryField,
    PaymentCurrencyField,
    RequestSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    TimestampField,
    UnsupportedField,
    optional_text,
)
from payments.rest.order import AirlineSerializer, CartItemSerializer, GuestBuyerSerializer, ShippingDetailsOutput
from payments.rest.outputs import ConstantField, OutputSerializer, StoredJsonField
from transactions.models import (
    RedemptionStatus,
    RefundStatus,
    RefundTargetType,
    Transaction,
    TransactionEvent,
    TransactionStatus,
)
from transactions.requests import (
    MAX_GIFT_CARDS,
    CardRequest,
    CheckoutSessionRequest,
    GiftCardRequest,
    PaymentMethodRequest,
    StoredPaymentMethodRequest,
    TransactionRequest,
)
from transactions.services import ActionResult

MAX_METADATA_KEYS = 20
MAX_METADATA_KEY_LENGTH = 40
MAX_METADATA_VALUE_LENGTH = 500


# --- building blocks -----------------------------------------------------------------------------------


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

# The ways to pay this server takes, by `method`; each has its input below, in `PAYMENT_METHOD_INPUTS`. Every
# input's `method` lists them all, so the schema has one enum of methods.
PAYMENT_METHODS = ["card", "checkout-session", "id"]


class PaymentMethodInput(StrictSerializer):
    """One way to pay: validates its body and builds the `PaymentMethodRequest` the service resolves."""

    def to_payment_method(self, data: dict[str, Any]) -> PaymentMethodRequest:
        raise NotImplementedError


# Fields upstream keeps with a newly stored method; here the transaction's own buyer is the one it is kept for.
_ONLY_WHEN_STORED = (
    "a card kept with store: true belongs to the transaction's buyer (buyer_id or buyer_external_identifier) and "
    "takes no reference of its own; store it with POST /payment-methods to set one."
)
_NO_REDIRECT = "no payment method this server takes sends the buyer anywhere (3-D Secure runs before the request)."


class CardPaymentMethodInput(CardDetailsSerializer, PaymentMethodInput):
    """`{"method": "card", number, expiration_date, security_code}`; the card data is never echoed."""

    method = serializers.ChoiceField(choices=PAYMENT_METHODS)
    buyer_id = UnsupportedField(_ONLY_WHEN_STORED)
    buyer_external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    card_type = UnsupportedField("the card's type is not declared by the client; no processor here reads it.")
    redirect_url = UnsupportedField(_NO_REDIRECT)

    def to_payment_method(self, data: dict[str, Any]) -> CardRequest:
        expiry = data["expiration_date"]
        return CardRequest(
            number=data["number"],
            expiration_month=expiry.month,
            expiration_year=expiry.year,
            security_code=data.get("security_code"),
        )


class CheckoutSessionPaymentMethodInput(PaymentMethodInput):
    """`{"method": "checkout-session", "id": ...}`: the card stored on that session."""

    method = serializers.ChoiceField(choices=PAYMENT_METHODS)
    id = serializers.UUIDField()
    buyer_id = UnsupportedField(_ONLY_WHEN_STORED)
    buyer_external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    redirect_url = UnsupportedField(_NO_REDIRECT)

    def to_payment_method(self, data: dict[str, Any]) -> CheckoutSessionRequest:
        return CheckoutSessionRequest(session_id=data["id"])


class StoredPaymentMethodInput(PaymentMethodInput):
    """`{"method": "id", "id": ..., "security_code"?}`: a buyer's stored payment method; the security code, which is
    never stored, may be typed again by the buyer for a customer-initiated payment."""

    method = serializers.ChoiceField(choices=PAYMENT_METHODS)
    id = serializers.UUIDField()
    security_code = SecurityCodeField(required=False, allow_null=True)
    redirect_url = UnsupportedField(_NO_REDIRECT)

    def to_payment_method(self, data: dict[str, Any]) -> StoredPaymentMethodRequest:
        return StoredPaymentMethodRequest(id=data["id"], security_code=data.get("security_code"))


PAYMENT_METHOD_INPUTS: dict[str, type[PaymentMethodInput]] = dict(
    zip(
        PAYMENT_METHODS,
        [CardPaymentMethodInput, CheckoutSessionPaymentMethodInput, StoredPaymentMethodInput],
        strict=True,
    )
)


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="TransactionPaymentMethodCreate",
        serializers=dict(PAYMENT_METHOD_INPUTS),  # a copy typed as drf-spectacular's (invariant) dict of serializers
        resource_type_field_name="method",
    )
)
class PaymentMethodField(serializers.Field):
    """One of the payment methods this server processes, chosen by `method`; validates into its request."""

    def to_internal_value(self, data: object) -> PaymentMethodRequest:
        if not isinstance(data, dict):
            raise serializers.ValidationError("Must be an object.")
        method = data.get("method")
        # Any JSON value may arrive here; only a string names a method (a list or object is no dictionary key).
        serializer_class = PAYMENT_METHOD_INPUTS.get(method) if isinstance(method, str) else None
        if serializer_class is None:
            raise serializers.ValidationError(
                {"method": [f"Must be one of: {', '.join(PAYMENT_METHOD_INPUTS)}."]}, code="unsupported_method"
            )
        serializer = serializer_class(data=data)
        serializer.is_valid(raise_exception=True)
        return serializer.to_payment_method(serializer.validated_data)

    def to_representation(self, value: object) -> None:
        return None


class GiftCardInput(StrictSerializer):
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


class ConnectionOptionsField(serializers.DictField):
    """`{"<connector key>": {...options} | null}`: option sets for named connections (which ones the configured
    connector reads is checked by the service)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.DictField(allow_null=True), required=False, allow_null=True, **kwargs)


def _optional_amount() -> AmountField:
    return AmountField(required=False, allow_null=True)


_PURCHASE_FIELDS = [field.name for field in dataclass_fields(PurchaseDetails)]


class TransactionCreateInput(RequestSerializer[TransactionRequest]):
    """Body of `POST /transactions`: every field of the upstream `TransactionCreate`."""

    amount = AmountField()
    currency = PaymentCurrencyField(min_length=3, max_length=3)
    country = CountryField(required=False, allow_null=True, min_length=2, max_length=2)
    # Left out: a checkout session's hint, else authorize (the service decides).
    intent = serializers.ChoiceField(choices=PaymentIntent.choices, required=False)
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
    description = StrictCharField(required=False, allow_null=True, allow_blank=True, trim_whitespace=False)
    statement_descriptor = StatementDescriptorSerializer(required=False, allow_null=True)
    recipient = RecipientSerializer(required=False, allow_null=True)
    # How the payment came about, for the processor (and the scheme's rules on stored credentials).
    payment_source = serializers.ChoiceField(choices=PaymentSource.choices, required=False)
    is_subsequent_payment = StrictBooleanField(default=False)
    merchant_initiated = StrictBooleanField(default=False)
    previous_scheme_transaction_id = optional_text(100)
    previous_transaction_link_id = optional_text(100)
    account_funding_transaction = StrictBooleanField(default=False)
    allow_partial_authorization = StrictBooleanField(default=False)
    installment_count = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=100)
    three_d_secure_data = ThreeDSecureDataSerializer(required=False, allow_null=True)
    browser_info = BrowserInfoSerializer(required=False, allow_null=True)
    connection_options = ConnectionOptionsField()
    # Purchase (level 2/3) data.
    tax_amount = _optional_amount()
    duty_amount = _optional_amount()
    shipping_amount = _optional_amount()
    amount_includes_tax = StrictBooleanField(required=False, allow_null=True)
    merchant_tax_id = optional_text(100)
    purchase_order_number = optional_text(100)
    customer_reference_number = optional_text(100)
    supplier_order_number = optional_text(100)
    # One of the buyer's stored shipping details, copied onto the transaction.
    shipping_details_id = serializers.UUIDField(required=False, allow_null=True)
    # Keep the card (sent inline or held by a checkout session) for the buyer once its authorization succeeds.
    store = StrictBooleanField(default=False)
    # Asked of upstream's platform, which this server does not have.
    async_capture = UnsupportedField(
        "captures are made while the request waits: send async_capture false.", accepts=False
    )
    three_d_secure = UnsupportedField(
        "this server runs no 3-D Secure authentication; send the result of your own in three_d_secure_data.",
        json_type="object",
    )
    payment_service_id = UnsupportedField(
        "there are no payment services to choose from: the built-in connector processes every payment."
    )
    anti_fraud_fingerprint = UnsupportedField("no anti-fraud service is configured.")
    integration_client = UnsupportedField("no payment method this server takes depends on the client's platform.")
    approval_expires_at = UnsupportedField("no payment method this server takes waits for the buyer's approval.")

    def validate(self, attrs: dict) -> dict:
        named = [name for name in ("buyer_id", "buyer_external_identifier", "buyer") if attrs.get(name) is not None]
        if len(named) > 1:
            raise serializers.ValidationError({named[1]: [f"Give only one of {', '.join(named)}."]})
        if attrs.get("payment_method") is None and not attrs.get("gift_cards"):
            raise serializers.ValidationError({"payment_method": ["A payment method or gift cards are required."]})
        method = attrs.get("payment_method")
        if attrs["merchant_initiated"] and isinstance(method, StoredPaymentMethodRequest) and method.security_code:
            raise serializers.ValidationError(
                {
                    "payment_method": {
                        "security_code": [
                            "A merchant-initiated payment is made without the buyer: send no security code."
                        ]
                    }
                }
            )
        return attrs

    def to_request(self, data: dict[str, Any]) -> TransactionRequest:
        return TransactionRequest(
            amount=data["amount"],
            currency=data["currency"],
            intent=data.get("intent"),
            payment_method=data.get("payment_method"),
            gift_cards=tuple(GiftCardRequest(**item) for item in data.get("gift_cards") or ()),
            buyer_id=data.get("buyer_id"),
            buyer_external_identifier=data.get("buyer_external_identifier"),
            guest_buyer=data.get("buyer"),
            shipping_details_id=data.get("shipping_details_id"),
            country=data.get("country"),
            external_identifier=data.get("external_identifier"),
            metadata=data.get("metadata"),
            cart_items=data.get("cart_items"),
            airline=data.get("airline"),
            description=data.get("description"),
            statement_descriptor=StatementDescriptorSerializer.build(data.get("statement_descriptor")),
            recipient=data.get("recipient"),
            payment_source=data.get("payment_source"),
            store=data["store"],
            merchant_initiated=data["merchant_initiated"],
            is_subsequent_payment=data["is_subsequent_payment"],
            previous_scheme_transaction_id=data.get("previous_scheme_transaction_id"),
            previous_transaction_link_id=data.get("previous_transaction_link_id"),
            account_funding_transaction=data["account_funding_transaction"],
            allow_partial_authorization=data["allow_partial_authorization"],
            installment_count=data.get("installment_count"),
            three_d_secure=ThreeDSecureDataSerializer.build(data.get("three_d_secure_data")),
            browser_info=BrowserInfoSerializer.build(data.get("browser_info")),
            connection_options=data.get("connection_options"),
            purchase=PurchaseDetails(**{name: data.get(name) for name in _PURCHASE_FIELDS}),
            ip_address=self.context.get("ip_address"),
        )


# --- PUT, capture, refunds --------------------------------------------------------------------------------

_MANUAL_FIELDS = ("status", "amount", "authorized_amount", "captured_amount", "payment_service_transaction_id")


class TransactionUpdateInput(StrictSerializer):
    """Body of `PUT /transactions/{id}`: only `external_identifier` and `metadata` change here."""

    external_identifier = optional_text(200)
    metadata = MetadataField(required=False, allow_null=True)
    connection_options = ConnectionOptionsField()

    def to_internal_value(self, data):
        if isinstance(data, dict):
            manual = [name for name in _MANUAL_FIELDS if name in data]
            if manual:
                raise serializers.ValidationError(
                    {name: ["Changes only through capture, void and refunds."] for name in manual}
                )
        return super().to_internal_value(data)


class TransactionCaptureInput(StrictSerializer):
    """Body of `POST /transactions/{id}/capture`."""

    amount = AmountField(min_value=1, required=False, allow_null=True)
    final = UnsupportedField(
        "one capture per authorization (the uncaptured rest is released): send final true.", accepts=True
    )
    reauthorize_if_authorization_expired = UnsupportedField(
        "authorizations are never reauthorized here: send false.", accepts=False
    )
    external_identifier = UnsupportedField("captures are not separate resources here, so there is nothing to name.")
    airline = UnsupportedField("order details are set when the transaction is created.", json_type="object")
    cart_items = UnsupportedField("order details are set when the transaction is created.", json_type="array")


class RefundCreateInput(StrictSerializer):
    """Body of `POST /transactions/{id}/refunds`."""

    amount = AmountField(min_value=1, required=False, allow_null=True)
    target_type = serializers.ChoiceField(choices=RefundTargetType.choices, default=RefundTargetType.PAYMENT_METHOD)
    target_id = serializers.UUIDField(required=False, allow_null=True)
    reason = StrictCharField(required=False, allow_null=True, allow_blank=True, max_length=100, trim_whitespace=False)
    external_identifier = optional_text(300)


class RefundAllInput(StrictSerializer):
    """Body of `POST /transactions/{id}/refunds/all` (optional)."""

    reason = StrictCharField(required=False, allow_null=True, allow_blank=True, max_length=100, trim_whitespace=False)
    external_identifier = optional_text(300)


# --- outputs --------------------------------------------------------------------------------------------

_NULL_STRING = {"type": "string", "nullable": True}
_NULL_OBJECT = {"type": "object", "nullable": True}


class TransactionGiftCardOutput(OutputSerializer):
    """The upstream `TransactionGiftCard`: the card a redemption used, by its displayable digits."""

    type = ConstantField("gift-card")
    id = serializers.UUIDField(source="gift_card_id", allow_null=True, help_text="The stored gift card used, if any.")
    bin = serializers.CharField()
    sub_bin = serializers.CharField()
    last4 = serializers.CharField()


class GiftCardRedemptionOutput(OutputSerializer):
    """The upstream `GiftCardRedemption`."""

    type = ConstantField("gift-card-redemption")
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=RedemptionStatus.choices)
    amount = serializers.IntegerField()
    refunded_amount = serializers.IntegerField()
    # The built-in program answers directly: there is no provider's redemption id.
    gift_card_service_redemption_id = ConstantField(None, schema=_NULL_STRING)
    error_code = serializers.CharField(allow_null=True)
    raw_error_code = serializers.CharField(allow_null=True)
    raw_error_message = serializers.CharField(allow_null=True)
    gift_card = TransactionGiftCardOutput(source="*")


class CardDetailsOutput(OutputSerializer):
    """What is known of a card beyond its number: the BIN (no BIN table, so no type or issuer)."""

    bin = serializers.CharField(source="card_bin")
    card_type = ConstantField(None, schema=_NULL_STRING)
    card_issuer_name = ConstantField(None, schema=_NULL_STRING)


class TransactionPaymentMethodOutput(OutputSerializer):
    """The upstream `TransactionPaymentMethod` of a card payment, masked: never the number or security code."""

    type = ConstantField("payment-method")
    method = ConstantField("card")
    mode = ConstantField("card")
    scheme = serializers.CharField(source="card_scheme", allow_null=True)
    # A field named like Field.label: DRF's metaclass moves declared fields off the class, so nothing is shadowed.
    label = serializers.CharField(  # type: ignore[assignment]
        source="card_last4", allow_null=True, help_text="The card's last 4 digits."
    )
    expiration_date = serializers.CharField(source="card_expiration_date", allow_null=True, help_text="MM/YY")
    fingerprint = serializers.CharField(source="card_fingerprint", allow_null=True)
    details = CardDetailsOutput(source="*")
    id = serializers.UUIDField(
        source="payment_method_id",
        allow_null=True,
        help_text="The stored payment method that paid, or that store: true made.",
    )
    approval_url = ConstantField(None, schema=_NULL_STRING)
    country = ConstantField(None, schema=_NULL_STRING)
    currency = ConstantField(None, schema=_NULL_STRING)
    external_identifier = ConstantField(None, schema=_NULL_STRING)


class TransactionBuyerOutput(OutputSerializer):
    """The upstream `TransactionBuyer`: the buyer as it was when the transaction was made (or a guest)."""

    type = ConstantField("buyer")
    id = serializers.CharField(allow_null=True)
    display_name = serializers.CharField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    billing_details = StoredJsonField(BillingDetailsSerializer(allow_null=True), allow_null=True)
    account_number = serializers.CharField(allow_null=True)


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


_PAYMENT_METHOD = TransactionPaymentMethodOutput()
_BUYER = TransactionBuyerOutput()
_SHIPPING_DETAILS = ShippingDetailsOutput()


class ThreeDSecureSummaryOutput(OutputSerializer):
    """The upstream `TransactionThreeDSecureSummary` of the result the client sent (docs/transactions.md)."""

    version = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=["complete", "declined", "error"], allow_null=True)
    method = serializers.ChoiceField(choices=["challenge", "frictionless"], allow_null=True)
    response_data = serializers.SerializerMethodField()
    error_data = ConstantField(None, schema=_NULL_OBJECT)
    amount = ConstantField(None, schema={"type": "integer", "nullable": True})

    @extend_schema_field(ThreeDSecureDataSerializer(allow_null=True))
    def get_response_data(self, summary: dict[str, Any]) -> dict[str, Any] | None:
        """The result as sent; upstream's version 2 shape has no `scheme`, so a version 2 result shows none."""
        data: dict[str, Any] | None = summary.get("response_data")
        if data and not str(summary.get("version", "")).startswith("1"):
            data = {name: value for name, value in data.items() if name != "scheme"}
        return data


class TransactionSummaryOutput(OutputSerializer):
    """The upstream `TransactionSummary`: a transaction as lists show it."""

    type = ConstantField("transaction")
    id = serializers.UUIDField()
    reconciliation_id = serializers.CharField()
    merchant_account_id = serializers.CharField()
    currency = serializers.CharField()
    amount = serializers.IntegerField(help_text="The total, gift cards included, in minor units.")
    status = serializers.ChoiceField(choices=TransactionStatus.choices)
    authorized_amount = serializers.IntegerField()
    captured_amount = serializers.IntegerField()
    refunded_amount = serializers.IntegerField()
    # Settlement is not tracked: nothing is ever reported settled.
    settled_currency = ConstantField(None, schema=_NULL_STRING)
    settled_amount = ConstantField(0)
    settled = ConstantField(False)
    country = serializers.CharField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    intent = serializers.ChoiceField(choices=PaymentIntent.choices)
    payment_method = serializers.SerializerMethodField()
    method = serializers.CharField(allow_null=True)
    instrument_type = serializers.SerializerMethodField()
    error_code = serializers.CharField(allow_null=True)
    payment_service = ConstantField(None, schema=_NULL_OBJECT)
    pending_review = ConstantField(False)
    buyer = serializers.SerializerMethodField()
    raw_response_code = serializers.CharField(allow_null=True)
    raw_response_description = serializers.CharField(allow_null=True)
    shipping_details = serializers.SerializerMethodField()
    checkout_session_id = serializers.UUIDField(allow_null=True)
    gift_card_redemptions = GiftCardRedemptionOutput(many=True)
    gift_card_service = ConstantField(None, schema=_NULL_OBJECT)
    created_at = TimestampField()
    updated_at = TimestampField()
    disputed = ConstantField(False)
    reauthorized_from_transaction_id = ConstantField(None, schema=_NULL_STRING)

    def to_representation(self, txn: Transaction) -> dict[str, Any]:
        # Redemptions are read twice (the list and `multi_tender`): one query, or none when a list prefetched them.
        prefetch_related_objects([txn], "gift_card_redemptions")
        return super().to_representation(txn)

    @extend_schema_field(TransactionPaymentMethodOutput(allow_null=True))
    def get_payment_method(self, txn: Transaction) -> dict[str, Any] | None:
        return _PAYMENT_METHOD.to_representation(txn) if txn.method == "card" else None

    def get_instrument_type(self, txn: Transaction) -> str | None:
        return "pan" if txn.method == "card" else None

    @extend_schema_field(TransactionBuyerOutput(allow_null=True))
    def get_buyer(self, txn: Transaction) -> dict[str, Any] | None:
        return _BUYER.to_representation(txn.buyer_details) if txn.buyer_details else None

    @extend_schema_field(ShippingDetailsOutput(allow_null=True))
    def get_shipping_details(self, txn: Transaction) -> dict[str, Any] | None:
        return _SHIPPING_DETAILS.to_representation(txn.shipping_details) if txn.shipping_details else None


class TransactionOutput(TransactionSummaryOutput):
    """The upstream `Transaction`: the summary and everything the transaction was created with."""

    cvv_response_code = serializers.CharField(allow_null=True)
    airline = StoredJsonField(AirlineSerializer(allow_null=True), allow_null=True)
    payment_source = serializers.ChoiceField(choices=PaymentSource.choices)
    merchant_initiated = serializers.BooleanField()
    is_subsequent_payment = serializers.BooleanField()
    cart_items = StoredJsonField(CartItemSerializer(many=True, allow_null=True), allow_null=True)
    statement_descriptor = StoredJsonField(StatementDescriptorSerializer(allow_null=True), allow_null=True)
    three_d_secure = ThreeDSecureSummaryOutput(allow_null=True)
    payment_service_transaction_id = serializers.CharField(allow_null=True)
    additional_identifiers = ConstantField({})
    metadata = serializers.DictField(child=serializers.CharField(), allow_null=True)
    authorized_at = TimestampField(allow_null=True)
    captured_at = TimestampField(allow_null=True)
    voided_at = TimestampField(allow_null=True)
    canceled_at = TimestampField(allow_null=True)
    intent_outcome = serializers.SerializerMethodField()
    multi_tender = serializers.SerializerMethodField()
    account_funding_transaction = serializers.BooleanField()
    recipient = StoredJsonField(RecipientSerializer(allow_null=True), allow_null=True)
    installment_count = serializers.IntegerField(allow_null=True)
    tax_amount = serializers.IntegerField(allow_null=True)
    merchant_tax_id = serializers.CharField(allow_null=True)
    purchase_order_number = serializers.CharField(allow_null=True)
    customer_reference_number = serializers.CharField(allow_null=True)
    amount_includes_tax = serializers.BooleanField(allow_null=True)
    supplier_order_number = serializers.CharField(allow_null=True)
    duty_amount = serializers.IntegerField(allow_null=True)
    shipping_amount = serializers.IntegerField(allow_null=True)

    @extend_schema_field(serializers.ChoiceField(choices=["pending", "succeeded", "failed"]))
    def get_intent_outcome(self, txn: Transaction) -> str:
        return intent_outcome(txn)

    def get_multi_tender(self, txn: Transaction) -> bool:
        """Paid with more than one instrument (gift cards and/or the payment method)."""
        return len(txn.gift_card_redemptions.all()) + (txn.method == "card") > 1


class RefundOutput(OutputSerializer):
    """The upstream `Refund`."""

    type = ConstantField("refund")
    id = serializers.UUIDField()
    transaction_id = serializers.UUIDField()
    payment_service_refund_id = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=RefundStatus.choices)
    currency = serializers.CharField()
    amount = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True)
    target_type = serializers.ChoiceField(choices=RefundTargetType.choices)
    target_id = serializers.UUIDField(source="redemption_id", allow_null=True)
    reconciliation_id = serializers.CharField()
    external_identifier = serializers.CharField(allow_null=True)
    transaction_reconciliation_id = serializers.CharField(source="transaction.reconciliation_id")
    transaction_external_identifier = serializers.CharField(source="transaction.external_identifier", allow_null=True)
    created_at = TimestampField()
    updated_at = TimestampField()
    creator = ConstantField(None, schema=_NULL_OBJECT)
    error_code = serializers.CharField(allow_null=True)
    raw_response_code = serializers.CharField(allow_null=True)
    raw_response_description = serializers.CharField(allow_null=True)
    settled_currency = ConstantField(None, schema=_NULL_STRING)
    settled_amount = ConstantField(0)
    settled = ConstantField(False)


class RefundsOutput(OutputSerializer):
    """The upstream `Refunds`: the refunds `refunds/all` made, as one complete page."""

    items = RefundOutput(many=True)
    limit = serializers.IntegerField()
    next_cursor = ConstantField(None, schema=_NULL_STRING)
    previous_cursor = ConstantField(None, schema=_NULL_STRING)


# What a processor said to a capture or void (a cancel asks none, so it always succeeds).
ACTION_STATUSES = ["succeeded", "declined", "failed"]


class _TransactionActionOutput(OutputSerializer):
    """What a capture, void or cancel did, around the transaction it left (`Prefer: resource=...`)."""

    status = serializers.SerializerMethodField()
    code = serializers.SerializerMethodField()
    raw_response_code = serializers.SerializerMethodField()
    raw_response_description = serializers.SerializerMethodField()
    transaction = TransactionOutput()

    @extend_schema_field(serializers.ChoiceField(choices=ACTION_STATUSES))
    def get_status(self, outcome: ActionResult) -> str:
        return "succeeded" if outcome.result is None or outcome.result.approved else str(outcome.result.outcome)

    def get_code(self, outcome: ActionResult) -> str | None:
        return outcome.result.error_code if outcome.result else None

    def get_raw_response_code(self, outcome: ActionResult) -> str | None:
        return outcome.result.raw_response_code if outcome.result else None

    def get_raw_response_description(self, outcome: ActionResult) -> str | None:
        return outcome.result.raw_response_description if outcome.result else None


class TransactionCaptureOutput(_TransactionActionOutput):
    """The upstream `TransactionCapture`."""

    type = ConstantField("transaction-capture")


class TransactionVoidOutput(_TransactionActionOutput):
    """The upstream `TransactionVoid`."""

    type = ConstantField("transaction-void")


class TransactionCancelOutput(_TransactionActionOutput):
    """The upstream `TransactionCancel`."""

    type = ConstantField("transaction-cancel")


# --- history: events and actions -------------------------------------------------------------------------

# Upstream's names for what our history records (the subset of its `TransactionEvent.name` enum we produce).
STATUS_CHANGED = "transaction-updated-status"
MODIFIED = "transaction-modified-event"
EVENT_NAMES = [
    STATUS_CHANGED,
    MODIFIED,
    "gift-card-redemption-succeeded",
    "gift-card-refund-succeeded",
    "gift-card-reversal-succeeded",
]
_HISTORY_NAMES = {
    "gift_card_redeemed": "gift-card-redemption-succeeded",
    "gift_card_returned": "gift-card-reversal-succeeded",
}
# Event ids are derived from the history row's key: stable, unique, and no second key on the history table.
_EVENT_ID_NAMESPACE = uuid.UUID("5f0b8a0e-3c1d-4f7e-9a51-0d6c2b9e7a43")


def transaction_event_id(event: TransactionEvent) -> uuid.UUID:
    return uuid.uuid5(_EVENT_ID_NAMESPACE, str(event.pk))


def transaction_event_name(event: TransactionEvent) -> str:
    """Upstream's name for a history row: a status change, a gift card movement, or another change."""
    if event.name in _HISTORY_NAMES:
        return _HISTORY_NAMES[event.name]
    if event.name == "refund_succeeded" and "redemption" in event.details:
        return "gift-card-refund-succeeded"
    if event.from_status != event.to_status and not event.name.startswith("refund_"):
        return STATUS_CHANGED
    return MODIFIED


class TransactionEventOutput(OutputSerializer):
    """The upstream `TransactionEvent`: one row of the transaction's history, what we record in `context`."""

    type = ConstantField("transaction-event")
    id = serializers.SerializerMethodField()
    name = serializers.SerializerMethodField()
    created_at = TimestampField()
    # A field named like Serializer.context: DRF's metaclass moves declared fields off the class, so the
    # serializer's own context stays reachable.
    context = serializers.SerializerMethodField()  # type: ignore[assignment]

    def get_id(self, event: TransactionEvent) -> uuid.UUID:
        return transaction_event_id(event)

    @extend_schema_field(serializers.ChoiceField(choices=EVENT_NAMES))
    def get_name(self, event: TransactionEvent) -> str:
        return transaction_event_name(event)

    @extend_schema_field(serializers.DictField())
    def get_context(self, event: TransactionEvent) -> dict[str, Any]:
        """What happened (our own event name), the statuses around it, the amount, who did it (an API key by its
        kid; staff and the system by kind only) and the event's details (refund or redemption ids, fields)."""
        actor: dict[str, str] = {"type": event.actor_type}
        if event.actor_type == TransactionEvent.ActorType.API_KEY:
            actor["id"] = event.actor
        return {
            "event": event.name,
            "status": event.to_status,
            "previous_status": event.from_status,
            "amount": event.amount,
            "actor": actor,
            "details": event.details,
        }


FLOW_ACTIONS = ["select-payment-options", "route-transaction", "decline-early", "skip-3ds"]
FLOWS = ["checkout", "card-transaction", "non-card-transaction", "redirect-transaction"]


class TransactionActionOutput(OutputSerializer):
    """The upstream `TransactionAction`: a routing rule that acted on the transaction."""

    type = ConstantField("action")
    id = serializers.ChoiceField(choices=FLOW_ACTIONS)
    flow = serializers.ChoiceField(choices=FLOWS)
    rule_id = serializers.UUIDField()
    created_at = TimestampField()
    outcome = serializers.DictField()


class TransactionActionsOutput(OutputSerializer):
    """The upstream `TransactionActions`: `{"items": [...]}`, unpaginated."""

    items = TransactionActionOutput(many=True)


# --- payment options --------------------------------------------------------------------------------------


class PaymentOptionsInput(StrictSerializer):
    """Body of `POST /payment-options`: the checkout the options are for."""

    amount = AmountField(required=False, allow_null=True)
    currency = PaymentCurrencyField(required=False, allow_null=True, min_length=3, max_length=3)
    # Validated; no method this server takes depends on the buyer's country.
    country = CountryField(required=False, allow_null=True, min_length=2, max_length=2)
    # Validated; labels are English whatever the locale (docs/transactions.md).
    locale = StrictCharField(required=False, min_length=1, max_length=50, default="en", trim_whitespace=False)
    metadata = UnsupportedField("there are no checkout rules to evaluate metadata against.", json_type="object")
    cart_items = UnsupportedField("there are no checkout rules to evaluate cart items against.", json_type="array")


class PaymentOptionOutput(OutputSerializer):
    """The upstream `PaymentOption`: one way to pay the checkout can show."""

    type = ConstantField("payment-option")
    method = serializers.CharField()
    mode = serializers.CharField()
    # `label` and `context` are also attributes of a serializer; DRF's metaclass takes declared fields out of the
    # class body, so the fields win, but the stubs see the attributes.
    label = serializers.CharField()  # type: ignore[assignment]
    icon_url = ConstantField(None, schema=_NULL_STRING)
    can_store_payment_method = serializers.BooleanField()
    can_delay_capture = serializers.BooleanField()
    context = ConstantField(None, schema=_NULL_OBJECT)  # type: ignore[assignment]


class PaymentOptionsOutput(OutputSerializer):
    """The upstream `PaymentOptions`."""

    items = PaymentOptionOutput(many=True)
