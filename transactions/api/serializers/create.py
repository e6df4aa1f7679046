"""Body of `POST /transactions`: the ways to pay, the gift cards of a split tender, and everything kept with the
transaction. `TransactionCreateInput` turns a valid body into the service's `TransactionRequest`."""

from __future__ import annotations

from dataclasses import fields as dataclass_fields
from typing import Any

from django.core.validators import URLValidator
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from payments.choices import PaymentIntent, PaymentSource
from payments.connectors import PurchaseDetails
from payments.rest.fields import (
    AmountField,
    CountryField,
    PaymentCurrencyField,
    RequestSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    UnsupportedField,
    method_input,
    optional_text,
)
from payments.shapes.cards import CardDetailsSerializer, SecurityCodeField
from payments.shapes.order import AirlineSerializer, CartItemSerializer, GuestBuyerSerializer
from payments.shapes.processor_data import (
    BrowserInfoSerializer,
    RecipientSerializer,
    StatementDescriptorSerializer,
    ThreeDSecureDataSerializer,
)
from payments.wallettokens import Wallet
from paymentservices.catalogues import redirect_methods
from transactions.api.serializers.fields import (
    ConnectionOptionsField,
    MetadataField,
)
from transactions.requests import (
    MAX_GIFT_CARDS,
    WALLET_REQUESTS,
    CardRequest,
    CheckoutSessionRequest,
    GiftCardRequest,
    PaymentMethodRequest,
    RedirectPaymentRequest,
    StoredPaymentMethodRequest,
    TransactionRequest,
)

# --- POST /transactions --------------------------------------------------------------------------------

# The ways to pay this server takes, by `method`; each has its input below, in `PAYMENT_METHOD_INPUTS`. Every
# input's `method` lists them all, so the schema has one enum of methods. The ways the buyer approves at a processor
# are those the registered processors take; a wallet's token is opened here (`applepay`, `googlepay`).
PAYMENT_METHODS = ["card", "checkout-session", "id", *WALLET_REQUESTS, *redirect_methods()]


class PaymentMethodInput(StrictSerializer):
    """One way to pay: validates its body and builds the `PaymentMethodRequest` the service resolves."""

    def to_payment_method(self, data: dict[str, Any]) -> PaymentMethodRequest | RedirectPaymentRequest:
        raise NotImplementedError


# Fields upstream keeps with a newly stored method; here the transaction's own buyer is the one it is kept for.
_ONLY_WHEN_STORED = (
    "a card kept with store: true belongs to the transaction's buyer (buyer_id or buyer_external_identifier) and "
    "takes no reference of its own; store it with POST /payment-methods to set one."
)


class WebUrlField(serializers.URLField):
    """An http(s) URL: DRF's URLField accepts ftp too, and a buyer's browser is only ever sent to a web page."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        kept = [validator for validator in self.validators if not isinstance(validator, URLValidator)]
        self.validators = [*kept, URLValidator(schemes=["http", "https"], message="Must be an http or https URL.")]


def _redirect_url_field() -> WebUrlField:
    """Where the buyer returns after a 3-D Secure challenge: an http(s) URL of at most 2048 characters (upstream's
    `data:` URLs answer a channel of its own frontend, which this server does not have)."""
    return WebUrlField(
        required=False,
        allow_null=True,
        max_length=2048,
        help_text="Where the buyer returns after a 3-D Secure challenge, with transaction_id and transaction_status.",
    )


class CardPaymentMethodInput(CardDetailsSerializer, PaymentMethodInput):
    """`{"method": "card", number, expiration_date, security_code}`; the card data is never echoed."""

    method = serializers.ChoiceField(choices=PAYMENT_METHODS)
    buyer_id = UnsupportedField(_ONLY_WHEN_STORED)
    buyer_external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    card_type = UnsupportedField("the card's type is not declared by the client; no processor here reads it.")
    redirect_url = _redirect_url_field()

    def to_payment_method(self, data: dict[str, Any]) -> CardRequest:
        expiry = data["expiration_date"]
        return CardRequest(
            number=data["number"],
            expiration_month=expiry.month,
            expiration_year=expiry.year,
            security_code=data.get("security_code"),
            redirect_url=data.get("redirect_url"),
        )


class CheckoutSessionPaymentMethodInput(PaymentMethodInput):
    """`{"method": "checkout-session", "id": ...}`: the card stored on that session."""

    method = serializers.ChoiceField(choices=PAYMENT_METHODS)
    id = serializers.UUIDField()
    buyer_id = UnsupportedField(_ONLY_WHEN_STORED)
    buyer_external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    redirect_url = _redirect_url_field()

    def to_payment_method(self, data: dict[str, Any]) -> CheckoutSessionRequest:
        return CheckoutSessionRequest(session_id=data["id"], redirect_url=data.get("redirect_url"))


class StoredPaymentMethodInput(PaymentMethodInput):
    """`{"method": "id", "id": ..., "security_code"?}`: a buyer's stored payment method; the security code, which is
    never stored, may be typed again by the buyer for a customer-initiated payment."""

    method = serializers.ChoiceField(choices=PAYMENT_METHODS)
    id = serializers.UUIDField()
    security_code = SecurityCodeField(required=False, allow_null=True)
    redirect_url = _redirect_url_field()

    def to_payment_method(self, data: dict[str, Any]) -> StoredPaymentMethodRequest:
        return StoredPaymentMethodRequest(
            id=data["id"], security_code=data.get("security_code"), redirect_url=data.get("redirect_url")
        )


class RedirectPaymentMethodInput(PaymentMethodInput):
    """The upstream `RedirectPaymentMethodCreate`, `{"method": "paypal", "redirect_url": ...}`: the buyer approves at
    PayPal, then returns to `redirect_url` (required: there is nowhere else to send the buyer)."""

    method = serializers.ChoiceField(choices=PAYMENT_METHODS)
    redirect_url = WebUrlField(
        max_length=2048,
        help_text="Where the buyer returns after approving (or not) at the processor, with transaction_id and "
        "transaction_status.",
    )
    # Upstream requires both; here they may be left out, and when sent they must be the transaction's own.
    country = serializers.RegexField(r"^[A-Z]{2}$", required=False)
    currency = serializers.RegexField(r"^[A-Z]{3}$", required=False)
    buyer_id = UnsupportedField(_ONLY_WHEN_STORED)
    buyer_external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    external_identifier = UnsupportedField(_ONLY_WHEN_STORED)

    def to_payment_method(self, data: dict[str, Any]) -> RedirectPaymentRequest:
        return RedirectPaymentRequest(
            method=data["method"],
            redirect_url=data["redirect_url"],
            country=data.get("country"),
            currency=data.get("currency"),
        )


# A token is read as its wallet publishes it; the largest real ones are a few kilobytes.
MAX_TOKEN_LENGTH = 20_000
_WALLET_CARD_FIELD = "the card's details are read from the decrypted token."


@extend_schema_field({"oneOf": [{"type": "object", "additionalProperties": True}, {"type": "string"}]})
class WalletTokenField(serializers.Field):
    """A wallet's token: a JSON object (Apple Pay's payment token, or its `paymentData`; Google Pay's token parsed),
    or for Google Pay the token's text as Google gives it. What it holds is checked when it is decrypted."""

    def to_internal_value(self, data: object) -> str | dict[str, Any]:
        if isinstance(data, dict):
            return data
        if isinstance(data, str):
            if not data or len(data) > MAX_TOKEN_LENGTH:
                raise serializers.ValidationError(f"Must be the token's text, 1 to {MAX_TOKEN_LENGTH} characters.")
            return data
        raise serializers.ValidationError("Must be the wallet's token: an object or its text.")

    def to_representation(self, value: object) -> None:
        return None


class WalletPaymentMethodInput(PaymentMethodInput):
    """Upstream's `ApplePayPaymentMethodCreate` and `GooglePayPaymentMethodCreate`: `{"method": "applepay" |
    "googlepay", "token": ...}`, decrypted on this server with the account's wallet keys (docs/digital-wallets.md)."""

    method = serializers.ChoiceField(choices=PAYMENT_METHODS)
    token = WalletTokenField()
    redirect_url = _redirect_url_field()
    buyer_id = UnsupportedField(_ONLY_WHEN_STORED)
    buyer_external_identifier = UnsupportedField(_ONLY_WHEN_STORED)
    card_scheme = UnsupportedField(_WALLET_CARD_FIELD)
    card_suffix = UnsupportedField(_WALLET_CARD_FIELD)
    card_type = UnsupportedField(_WALLET_CARD_FIELD)
    cardholder_name = UnsupportedField(_WALLET_CARD_FIELD)
    assurance_details = UnsupportedField("Google Pay's assurance details are not read.", json_type="object")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["method"] == Wallet.APPLE_PAY and not isinstance(attrs["token"], dict):
            raise serializers.ValidationError({"token": ["Must be Apple Pay's payment token, an object."]})
        return attrs

    def to_payment_method(self, data: dict[str, Any]) -> PaymentMethodRequest:
        return WALLET_REQUESTS[data["method"]](token=data["token"], redirect_url=data.get("redirect_url"))


PAYMENT_METHOD_INPUTS: dict[str, type[PaymentMethodInput]] = {
    "card": CardPaymentMethodInput,
    "checkout-session": CheckoutSessionPaymentMethodInput,
    "id": StoredPaymentMethodInput,
    **dict.fromkeys(WALLET_REQUESTS, WalletPaymentMethodInput),
    **dict.fromkeys(redirect_methods(), RedirectPaymentMethodInput),
}


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="TransactionPaymentMethodCreate",
        serializers=dict(PAYMENT_METHOD_INPUTS),  # a copy typed as drf-spectacular's (invariant) dict of serializers
        resource_type_field_name="method",
    )
)
class PaymentMethodField(serializers.Field):
    """One of the payment methods this server processes, chosen by `method`; validates into its request."""

    def to_internal_value(self, data: object) -> PaymentMethodRequest | RedirectPaymentRequest:
        serializer = method_input(data, PAYMENT_METHOD_INPUTS)
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


def _optional_amount() -> AmountField:
    return AmountField(required=False, allow_null=True)


_PURCHASE_FIELDS = [field.name for field in dataclass_fields(PurchaseDetails)]
# The request's fields the body names otherwise (upstream's names), and those built into typed objects.
_INPUT_NAMES = {"guest_buyer": "buyer", "three_d_secure": "three_d_secure_data"}
_TYPED_INPUTS: dict[str, Any] = {
    "three_d_secure": ThreeDSecureDataSerializer,
    "browser_info": BrowserInfoSerializer,
    "statement_descriptor": StatementDescriptorSerializer,
}


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
        "3-D Secure runs on this server for payment services with three_d_secure_enabled and takes no options; "
        "send the result of an authentication of your own in three_d_secure_data.",
        json_type="object",
    )
    # The account's payment service to send the card part to, refused by name when it cannot take the payment.
    payment_service_id = serializers.UUIDField(required=False, allow_null=True)
    anti_fraud_fingerprint = UnsupportedField("no anti-fraud service is configured.")
    integration_client = UnsupportedField("no payment method this server takes depends on the client's platform.")
    approval_expires_at = UnsupportedField(
        "a 3-D Secure challenge waits for the buyer for the server's window (THREE_D_SECURE_CHALLENGE_SECONDS)."
    )

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
        """The request, field by field by name: what the body left out keeps the request's default."""
        values: dict[str, Any] = {}
        for field in dataclass_fields(TransactionRequest):
            name = _INPUT_NAMES.get(field.name, field.name)
            if field.name == "purchase":
                values["purchase"] = PurchaseDetails(**{name: data.get(name) for name in _PURCHASE_FIELDS})
            elif field.name == "gift_cards":
                values["gift_cards"] = tuple(GiftCardRequest(**item) for item in data.get("gift_cards") or ())
            elif field.name in _TYPED_INPUTS:
                values[field.name] = _TYPED_INPUTS[field.name].build(data.get(name))
            elif field.name in ("ip_address", "server_base_url"):
                values[field.name] = self.context.get(field.name)
            elif name in data:
                values[field.name] = data[name]
        return TransactionRequest(**values)
