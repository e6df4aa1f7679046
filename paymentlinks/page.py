"""The page at a link's `url`: the merchant's branding, the cart and the amount in the buyer's locale.

Everything the merchant sent is shown as text by the template (auto-escaped) or used where `paymentlinks.branding`
allowed it: the colour as a CSS value set by the nonce'd stylesheet, the banner and favicon as images from their own
https hosts, which the content security policy names one by one.
"""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from checkout import security
from paymentlinks import branding
from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.selectors import payment_link_get_by_id
from payments.errors import NotFound
from payments.money import format_money_for_buyers, major_units
from payments.rest.envelope import error_response

DEFAULT_COLOR = "#1a56db"
DEFAULT_LOCALE = "en"


def payment_link_page(request: HttpRequest, payment_link_id: uuid.UUID) -> HttpResponse:
    """The link's page; a link that does not exist is the 404 envelope like any unknown URL."""
    if request.method not in ("GET", "HEAD"):
        refusal = error_response(405)
        refusal["Allow"] = "GET, HEAD"
        return refusal
    try:
        link = payment_link_get_by_id(id=payment_link_id)
    except NotFound:
        return error_response(404)
    nonce = security.new_nonce()
    context = {
        "link": link,
        "status": link.shown_status,
        "payable": link.shown_status == PaymentLinkStatus.ACTIVE,
        "total": money(link.amount, link.currency),
        "locale": link.locale or DEFAULT_LOCALE,
        "items": _items(link),
        "color": link.merchant_color or DEFAULT_COLOR,
        "csp_nonce": nonce,
    }
    response = render(request, "paymentlinks/page.html", context)
    response["Content-Security-Policy"] = page_policy(nonce=nonce, link=link)
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def money(amount: int, currency: str) -> dict[str, str]:
    """An amount as the page shows it before its script runs (as Embed writes it), and the exact major units the
    script formats in the link's locale with the browser's own `Intl.NumberFormat` (`de`: 12,99 €)."""
    return {"text": format_money_for_buyers(amount, currency), "value": str(major_units(amount, currency))}


def _items(link: PaymentLink) -> list[dict[str, object]]:
    return [
        {
            "name": item.get("name"),
            "quantity": item.get("quantity"),
            "total": money(int(item.get("unit_amount") or 0) * int(item.get("quantity") or 0), link.currency),
        }
        for item in link.cart_items or []
    ]


def page_policy(*, nonce: str, link: PaymentLink) -> str:
    """As strict as Embed's pages: its own script file and nonce'd style, images from the merchant's two hosts."""
    images = {branding.url_host(link.merchant_banner_url), branding.url_host(link.merchant_favicon_url)} - {None}
    return security.content_security_policy(
        {
            "default-src": ["'none'"],
            "script-src": ["'self'"],
            "style-src": [f"'nonce-{nonce}'"],
            "img-src": sorted(str(host) for host in images) or ["'none'"],
            "base-uri": ["'none'"],
            "form-action": ["'none'"],
            "frame-ancestors": ["'none'"],
        }
    )
