"""The buyers app's own pivot (payments.staff.pivots): a buyer's shipping details."""

from django.utils.html import format_html
from django.utils.safestring import SafeString

from buyers.models import ShippingDetails
from payments.staff import pivots


def _shipping(details: ShippingDetails) -> SafeString:
    address = details.address if isinstance(details.address, dict) else {}
    name = " ".join(part for part in (details.first_name, details.last_name) if part)
    place = ", ".join(part for part in (address.get("line1"), address.get("city"), address.get("country")) if part)
    return format_html("{}: {}", name or "-", place or "-")


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
