"""The upstream `Buyer` shape as it is rendered, by the buyer endpoints and inside the resources that embed a buyer
(stored gift cards, payment methods): the one module of this app's outputs other apps may import, since apps
never import each other's views or serializers."""

from rest_framework import serializers

from payments.rest.fields import TimestampField
from payments.rest.outputs import ConstantField, OutputSerializer, StoredJsonField
from payments.shapes.addresses import BillingDetailsSerializer


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
