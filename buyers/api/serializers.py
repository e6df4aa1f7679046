"""Buyer input and output shapes, field for field as the upstream `Buyer` schema."""

from typing import Any

from rest_framework import serializers

from buyers.models import Buyer
from payments.rest.fields import (
    ApiModelSerializer,
    BillingDetailsSerializer,
    StrictSerializer,
    TimestampField,
    optional_text,
)


class BuyerInput(StrictSerializer):
    """Body of `POST /buyers` and `PUT /buyers/{id}`: every field optional, null clears it."""

    display_name = optional_text(200)
    external_identifier = optional_text(200)
    account_number = optional_text(200)
    billing_details = BillingDetailsSerializer(required=False, allow_null=True)


_TIMESTAMP = TimestampField()


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

    def to_representation(self, buyer: Buyer) -> dict[str, Any]:
        """The fields above, read directly instead of through DRF's field-by-field machinery.

        This runs for every row of every list page, where the generic path costs more than the query
        (docs/performance.md); a test holds the two renderings equal.
        """
        return {
            "type": self.get_type(buyer),
            "id": str(buyer.id),
            "reconciliation_id": buyer.reconciliation_id,
            "merchant_account_id": buyer.merchant_account_id,
            "display_name": buyer.display_name,
            "external_identifier": buyer.external_identifier,
            "billing_details": buyer.billing_details,
            "account_number": buyer.account_number,
            "created_at": _TIMESTAMP.to_representation(buyer.created_at),
            "updated_at": _TIMESTAMP.to_representation(buyer.updated_at),
        }
