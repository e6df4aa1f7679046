"""Buyer input and output shapes, field for field as the upstream `Buyer` schema."""

from rest_framework import serializers

from payments.rest.fields import StrictSerializer, TimestampField, optional_text
from payments.rest.outputs import ConstantField, OutputSerializer, StoredJsonField
from payments.shapes.addresses import BillingDetailsSerializer
from payments.shapes.order import ShippingDetailsOutput


class BuyerInput(StrictSerializer):
    """Body of `POST /buyers` and `PUT /buyers/{id}`: every field optional, null clears it."""

    display_name = optional_text(200)
    external_identifier = optional_text(200)
    account_number = optional_text(200)
    billing_details = BillingDetailsSerializer(required=False, allow_null=True)


class BuyerOutput(OutputSerializer):
    """The upstream `Buyer`."""

    type = ConstantField("buyer")
    id = serializers.UUIDField()
    reconciliation_id = serializers.CharField()
    merchant_account_id = serializers.CharField()
    display_name = serializers.CharField(allow_null=True)
    external_identifier = serializers.CharField(allow_null=True)
    billing_details = StoredJsonField(BillingDetailsSerializer(allow_null=True), allow_null=True)
    account_number = serializers.CharField(allow_null=True)
    created_at = TimestampField()
    updated_at = TimestampField()


class ShippingDetailsListOutput(OutputSerializer):
    """The upstream `ShippingDetailsList`: all of a buyer's shipping details, newest first (there are no pages)."""

    items = ShippingDetailsOutput(many=True)
