"""A transaction's disputes over the API: an extension (upstream has no dispute resource; docs/api-contracts.md)."""

from __future__ import annotations

from rest_framework import serializers

from disputes.models import STATE_CHOICES
from payments.rest.fields import TimestampField
from payments.rest.outputs import ConstantField, OutputSerializer


class DisputeOutput(OutputSerializer):
    """One dispute of the transaction, as its processor's latest fact says (docs/disputes.md)."""

    type = ConstantField("dispute")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    transaction_id = serializers.UUIDField()
    payment_service_id = serializers.UUIDField()
    payment_service_dispute_id = serializers.CharField(source="processor_dispute_id")
    state = serializers.ChoiceField(choices=STATE_CHOICES)
    reason = serializers.CharField(allow_null=True, help_text="The processor's reason code.")
    amount = serializers.IntegerField(help_text="The disputed amount, in minor units.")
    currency = serializers.CharField()
    due_at = TimestampField(allow_null=True, help_text="When the answer is due at the processor.")
    closed_at = TimestampField(allow_null=True)
    created_at = TimestampField()
    updated_at = TimestampField()


class DisputesOutput(OutputSerializer):
    """Every dispute of the transaction, newest first, and what those decided for the buyer took back of it."""

    items = DisputeOutput(many=True)
    taken_back_amount = serializers.IntegerField(
        help_text="What lost or accepted disputes took back of the payment, in minor units of its currency."
    )
