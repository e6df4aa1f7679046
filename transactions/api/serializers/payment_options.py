"""`POST /payment-options`: the checkout asked about and the ways to pay it may show."""

from __future__ import annotations

from rest_framework import serializers

from payments.rest.fields import (
    AmountField,
    CountryField,
    PaymentCurrencyField,
    StrictCharField,
    StrictSerializer,
    UnsupportedField,
)
from payments.rest.outputs import ConstantField, OutputSerializer
from transactions.api.serializers.fields import (
    NULL_STRING,
)

# --- payment options --------------------------------------------------------------------------------------


class PaymentOptionsInput(StrictSerializer):
    """Body of `POST /payment-options`: the checkout the options are for."""

    amount = AmountField(required=False, allow_null=True)
    currency = PaymentCurrencyField(required=False, allow_null=True, min_length=3, max_length=3)
    # Narrows PayPal to the services that take the buyer's country (cards and gift cards take every country).
    country = CountryField(required=False, allow_null=True, min_length=2, max_length=2)
    # Validated; labels are English whatever the locale (docs/transactions.md).
    locale = StrictCharField(required=False, min_length=1, max_length=50, default="en", trim_whitespace=False)
    metadata = UnsupportedField("there are no checkout rules to evaluate metadata against.", json_type="object")
    cart_items = UnsupportedField("there are no checkout rules to evaluate cart items against.", json_type="array")


class WalletPaymentOptionContextOutput(OutputSerializer):
    """The upstream `WalletPaymentOptionContext`: the name on the wallet's payment sheet and the schemes it offers."""

    merchant_name = serializers.CharField()
    supported_schemes = serializers.ListField(child=serializers.CharField())


class PaymentOptionOutput(OutputSerializer):
    """The upstream `PaymentOption`: one way to pay the checkout can show."""

    type = ConstantField("payment-option")
    method = serializers.CharField()
    mode = serializers.CharField()
    # `label` and `context` are also attributes of a serializer; DRF's metaclass takes declared fields out of the
    # class body, so the fields win, but the stubs see the attributes.
    label = serializers.CharField()  # type: ignore[assignment]
    icon_url = ConstantField(None, schema=NULL_STRING)
    can_store_payment_method = serializers.BooleanField()
    can_delay_capture = serializers.BooleanField()
    # A wallet's (Apple Pay, Google Pay); null for every other way to pay.
    context = WalletPaymentOptionContextOutput(allow_null=True)  # type: ignore[assignment]


class PaymentOptionsOutput(OutputSerializer):
    """The upstream `PaymentOptions`."""

    items = PaymentOptionOutput(many=True)
