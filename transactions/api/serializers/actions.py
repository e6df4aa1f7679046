"""Bodies of what follows a create: `PUT /transactions/{id}`, capture, refunds."""

from __future__ import annotations

from rest_framework import serializers

from payments.rest.fields import (
    AmountField,
    StrictBooleanField,
    StrictCharField,
    StrictSerializer,
    UnsupportedField,
    optional_text,
)
from transactions.api.serializers.fields import (
    ConnectionOptionsField,
    MetadataField,
)
from transactions.models import (
    RefundTargetType,
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
    final = StrictBooleanField(default=True)
    reauthorize_if_authorization_expired = UnsupportedField(
        "authorizations are never reauthorized here: send false.", accepts=False
    )
    external_identifier = optional_text(300)
    airline = UnsupportedField("order details are set when the transaction is created.", json_type="object")
    cart_items = UnsupportedField("order details are set when the transaction is created.", json_type="array")


class AuthorizationIncrementInput(StrictSerializer):
    """Body of `POST /transactions/{id}/authorization/increment`: the amount to add to the authorization."""

    amount = AmountField(min_value=1)


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
