"""What the support desk's search box finds among buyers (payments.staff.search)."""

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from buyers.models import Buyer
from buyers.selectors import buyer_staff_search
from payments.staff.search import SHOWN, Hit, is_last4

VIEW = "buyers.view_buyer"


def buyer_label(buyer: Buyer) -> SafeString:
    """Name, email address and account: what tells two buyers apart on one line."""
    email = buyer.billing_details.get("email_address") if isinstance(buyer.billing_details, dict) else None
    return format_html(
        "{} · {} · {}",
        buyer.display_name or buyer.external_identifier or buyer.pk,
        email or "-",
        buyer.merchant_account_id,
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
