"""Buyer input and output shapes, field for field as the upstream `Buyer` schema."""

from rest_framework import serializers

from buyers.models import Buyer
from payments.api.serializers import ApiModelSerializer, BillingDetailsSerializer, StrictSerializer, optional_text


class BuyerInput(StrictSerializer):
    """Body of `POST /buyers` and `PUT /buyers/{id}`: every field optional, null clears it."""

    display_name = optional_text(200)
    external_identifier = optional_text(200)
    account_number = optional_text(200)
    billing_details = BillingDetailsSerializer(required=False, allow_null=True)


class BuyerOutput(ApiModelSerializer):
    type = serializers.SerializerMethodField()
    reconciliation_id = serializers.CharField(read_only=True)
    merchant_account_id = serializers.CharField(read_only=True)

    class Meta:
        model = Buyer
        fields = [
            "type",
            "id",
            "reconciliation_id",
            "merchant_account_id",
            "display_name",
            "external_identifier",
            "billing_details",
            "account_number",
            "created_at",
            "updated_at",
        ]

    def get_type(self, obj: Buyer) -> str:
        return "buyer"
