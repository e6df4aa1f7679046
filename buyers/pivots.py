"""Buyers as the desk shows them: addresses and contact details as a person reads them, and the buyers app's own
pivot (payments.staff.pivots): a buyer's shipping details."""

from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString

from buyers.models import ShippingDetails
from payments.staff import pivots


def address_lines(address: dict[str, Any] | None) -> list[str]:
    """An address as written on an envelope: street, second line, postal code and city, then state and country."""
    if not isinstance(address, dict):
        return []
    street = ", ".join(part for part in (address.get("house_number_or_name"), address.get("line1")) if part)
    place = " ".join(part for part in (address.get("postal_code"), address.get("city")) if part)
    region = ", ".join(part for part in (address.get("state"), address.get("country")) if part)
    return [line for line in (street, address.get("line2"), place, region) if line]


def contact_lines(details: dict[str, Any] | None) -> list[str]:
    """Name, email address and phone number (of billing or shipping details), those that are there."""
    if not isinstance(details, dict):
        return []
    name = " ".join(part for part in (details.get("first_name"), details.get("last_name")) if part)
    return [line for line in (name, details.get("email_address"), details.get("phone_number")) if line]


def _shipping(details: ShippingDetails) -> SafeString:
    name = " ".join(part for part in (details.first_name, details.last_name) if part)
    return format_html("{}: {}", name or "-", ", ".join(address_lines(details.address)) or "-")


def register() -> None:
    pivots.register(
        pivots.Pivot(
            target="buyers.buyer",
            title="Shipping details",
            model=ShippingDetails,
            lookup="buyer_id",
            describe=_shipping,
        )
    )
