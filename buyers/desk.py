"""What the support desk's search box finds among buyers (payments.staff.search)."""

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from buyers.models import Buyer
from buyers.selectors import buyer_staff_search
from payments.staff.dates import desk_date
from payments.staff.search import SHOWN, Hit, is_last4

VIEW = "buyers.view_buyer"


def buyer_label(buyer: Buyer) -> SafeString:
    """Name, email address and account, then what tells two buyers of one name and email apart: the external
    identifier, since when, and the start of the id (what people read out)."""
    email = buyer.billing_details.get("email_address") if isinstance(buyer.billing_details, dict) else None
    return format_html(
        "{} · {} · {} · {} · since {} · {}",
        buyer.display_name or buyer.external_identifier or buyer.pk,
        email or "-",
        buyer.merchant_account_id,
        f"ext. {buyer.external_identifier}" if buyer.external_identifier else "no external id",
        desk_date(buyer.created_at),
        str(buyer.pk).split("-")[0],
    )


def buyer_hit(buyer: Buyer) -> Hit:
    return Hit("Buyers", reverse("admin:buyers_buyer_profile", args=[buyer.pk]), buyer_label(buyer), VIEW)


def find_buyers(term: str) -> list[Hit]:
    """By id, external identifier, part of a name or email address. Last 4 digits name a card, not a buyer: the
    apps that hold cards answer those with their buyers."""
    if is_last4(term):
        return []
    rows = buyer_staff_search(Buyer.objects.all(), term).order_by("-created_at", "-id")[:SHOWN]
    return [buyer_hit(buyer) for buyer in rows]
