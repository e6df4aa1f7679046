"""Buyer input and list shapes, field for field as the upstream schemas (the `Buyer` output: buyers/outputs.py)."""

from payments.rest.fields import StrictSerializer, optional_text
from payments.rest.outputs import OutputSerializer
from payments.shapes.addresses import BillingDetailsSerializer
from payments.shapes.order import ShippingDetailsOutput


class BuyerInput(StrictSerializer):
    """Body of `POST /buyers` and `PUT /buyers/{id}`: every field optional, null clears it."""

    display_name = optional_text(200)
    external_identifier = optional_text(200)
    account_number = optional_text(200)
    billing_details = BillingDetailsSerializer(required=False, allow_null=True)


class ShippingDetailsListOutput(OutputSerializer):
    """The upstream `ShippingDetailsList`: all of a buyer's shipping details, newest first (there are no pages)."""

    items = ShippingDetailsOutput(many=True)
