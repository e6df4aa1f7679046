"""Order details that checkout sessions and transactions both carry: cart items, a guest buyer, airline data.

Field for field as the upstream `CartItem`, `GuestBuyer` and `Airline` schemas. Validated values are plain
JSON (timestamps as ISO 8601 strings), ready for a `JSONField` and rendered back as stored.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from rest_framework import serializers

from payments.rest.fields import AmountField, CountryField, StrictBooleanField, StrictSerializer, optional_text
from payments.rest.outputs import ConstantField, OutputSerializer, StoredJsonField
from payments.shapes.addresses import (
    AddressSerializer,
    BillingDetailsSerializer,
    ShippingDetailsSerializer,
    optional_phone,
)

PRODUCT_TYPES = [
    "physical",
    "discount",
    "shipping_fee",
    "sales_tax",
    "digital",
    "gift_card",
    "store_credit",
    "surcharge",
]


# This field and the next parse as DRF's date fields do (and are documented as such) but keep text: their internal
# value is a str where DateTimeField / DateField declare a datetime / date, hence the override ignores.
class TimestampTextField(serializers.DateTimeField):
    """An ISO 8601 date-time, kept as UTC text with microseconds so it can live in a JSONField."""

    def to_internal_value(self, value: datetime | str) -> str:  # type: ignore[override]
        return super().to_internal_value(value).astimezone(UTC).isoformat(timespec="microseconds")

    def to_representation(self, value: str) -> str:  # type: ignore[override]
        return value


class DateTextField(serializers.DateField):
    """An ISO 8601 date, kept as text."""

    def to_internal_value(self, value: date | str) -> str:  # type: ignore[override]
        return super().to_internal_value(value).isoformat()

    def to_representation(self, value: str) -> str:  # type: ignore[override]
        return value


def optional_amount() -> AmountField:
    return AmountField(required=False, allow_null=True)


def optional_flag() -> StrictBooleanField:
    return StrictBooleanField(required=False, allow_null=True)


def optional_country() -> CountryField:
    return CountryField(required=False, allow_null=True)


class CartItemSerializer(StrictSerializer):
    """One line of the order."""

    name = serializers.CharField(min_length=1, max_length=255, trim_whitespace=False)
    quantity = AmountField(min_value=1)
    unit_amount = AmountField()
    discount_amount = AmountField(required=False, allow_null=True, default=0)
    tax_amount = AmountField(required=False, allow_null=True, default=0)
    external_identifier = optional_text(200)
    sku = optional_text(200)
    upc = optional_text(50)
    product_url = serializers.CharField(required=False, allow_null=True, allow_blank=True, trim_whitespace=False)
    image_url = serializers.CharField(required=False, allow_null=True, allow_blank=True, trim_whitespace=False)
    categories = serializers.ListField(
        child=serializers.CharField(min_length=1, max_length=50, trim_whitespace=False),
        required=False,
        allow_null=True,
    )
    product_type = serializers.ChoiceField(choices=PRODUCT_TYPES, required=False, allow_null=True)
    seller_country = optional_country()
    tax_exempt = optional_flag()
    unit_of_measure = optional_text(50)
    commodity_code = optional_text(50)
    description = optional_text(255)
    duty_amount = optional_amount()
    shipping_amount = optional_amount()


class ShippingDetailsOutput(OutputSerializer):
    """The upstream `ShippingDetails`: a buyer's stored details (with their `id` and `buyer_id`), or the copy a
    transaction keeps (the stored details' ids when it used some, none for a guest buyer's own)."""

    type = ConstantField("shipping-details")
    id = serializers.UUIDField(allow_null=True)
    buyer_id = serializers.UUIDField(allow_null=True)
    first_name = serializers.CharField(allow_null=True)
    last_name = serializers.CharField(allow_null=True)
    email_address = serializers.CharField(allow_null=True)
    phone_number = serializers.CharField(allow_null=True)
    address = StoredJsonField(AddressSerializer(allow_null=True), allow_null=True)


class GuestBuyerSerializer(StrictSerializer):
    """Buyer details kept with the order only; no Buyer resource is created from them."""

    display_name = optional_text(200)
    external_identifier = optional_text(200)
    billing_details = BillingDetailsSerializer(required=False, allow_null=True)
    account_number = optional_text(200)
    shipping_details = ShippingDetailsSerializer(required=False, allow_null=True)


def _fixed_text(length: int) -> serializers.CharField:
    return serializers.CharField(
        min_length=length, max_length=length, required=False, allow_null=True, trim_whitespace=False
    )


def _text_between(min_length: int, max_length: int | None = None) -> serializers.CharField:
    return serializers.CharField(
        min_length=min_length, max_length=max_length, required=False, allow_null=True, trim_whitespace=False
    )


class AirlineLegSerializer(StrictSerializer):
    arrival_airport = _fixed_text(3)
    arrival_at = TimestampTextField(required=False, allow_null=True)
    arrival_city = optional_text(100)
    arrival_country = optional_country()
    carrier_code = _text_between(2, 3)
    carrier_name = _text_between(1)
    iata_designator = _fixed_text(2)
    icao_code = _fixed_text(3)
    coupon_number = optional_text(50)
    departure_airport = _fixed_text(3)
    departure_at = TimestampTextField(required=False, allow_null=True)
    departure_city = optional_text(100)
    departure_country = optional_country()
    departure_tax_amount = optional_amount()
    fare_amount = optional_amount()
    fare_basis_code = optional_text(8)
    fee_amount = optional_amount()
    flight_class = optional_text(5)
    flight_number = _text_between(3, 6)
    route_type = serializers.ChoiceField(choices=["round_trip", "one_way"], required=False, allow_null=True)
    seat_class = optional_text(5)
    stop_over = optional_flag()
    tax_amount = optional_amount()


class AirlinePassengerSerializer(StrictSerializer):
    age_group = serializers.ChoiceField(choices=["adult", "infant"], required=False, allow_null=True)
    date_of_birth = DateTextField(required=False, allow_null=True)
    email_address = optional_text(320)
    first_name = optional_text(255)
    frequent_flyer_number = _text_between(5, 50)
    last_name = optional_text(255)
    passport_number = optional_text(50)
    phone_number = optional_phone()
    ticket_number = optional_text(50)
    title = optional_text(50)
    country_code = optional_country()


class AirlineSerializer(StrictSerializer):
    """The airline addendum: booking, ticket, travel agency, legs and passengers."""

    booking_code = optional_text(50)
    is_cardholder_traveling = optional_flag()
    issued_address = optional_text(255)
    issued_at = TimestampTextField(required=False, allow_null=True)
    issuing_carrier_code = _text_between(2, 3)
    issuing_carrier_name = _text_between(1)
    issuing_iata_designator = _fixed_text(2)
    issuing_icao_code = _fixed_text(3)
    # With many=True DRF builds a ListSerializer, which takes max_length; the stubs type the child's arguments.
    legs = AirlineLegSerializer(many=True, required=False, allow_null=True, max_length=20)  # type: ignore[call-arg]
    passenger_name_record = optional_text(50)
    passengers = AirlinePassengerSerializer(  # type: ignore[call-arg]  # max_length: as for `legs`
        many=True, required=False, allow_null=True, max_length=20
    )
    reservation_system = optional_text(200)
    restricted_ticket = optional_flag()
    ticket_delivery_method = serializers.ChoiceField(
        choices=["electronic", "other"], required=False, allow_null=True, default="electronic"
    )
    ticket_number = optional_text(50)
    travel_agency_code = optional_text(50)
    travel_agency_invoice_number = optional_text(50)
    travel_agency_name = optional_text(200)
    travel_agency_plan_name = optional_text(200)
