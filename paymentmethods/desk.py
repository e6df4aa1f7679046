"""What the support desk's search box finds among stored payment methods, and whose they are."""

from django.urls import reverse
from django.utils.html import format_html

from buyers.desk import buyer_hit
from paymentmethods.models import PaymentMethod
from paymentmethods.selectors import payment_method_staff_search
from payments.staff.search import SHOWN, Hit

VIEW = "paymentmethods.view_paymentmethod"


def find_payment_methods(term: str) -> list[Hit]:
    rows = list(
        payment_method_staff_search(PaymentMethod.objects.select_related("card", "buyer"), term).order_by(
            "-created_at", "-id"
        )[:SHOWN]
    )
    hits = [
        Hit(
            "Payment methods",
            reverse("admin:paymentmethods_paymentmethod_change", args=[method.pk]),
            format_html("{} · {} · used {} time(s)", method.card, _owner(method), method.usage_count),
            VIEW,
        )
        for method in rows
    ]
    return hits + [buyer_hit(method.buyer) for method in rows if method.buyer is not None]


def _owner(method: PaymentMethod) -> str:
    if method.buyer is None:
        return "no buyer"
    return method.buyer.display_name or "-"
