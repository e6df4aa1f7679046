"""The page at a link's `url`: the merchant's branding, the cart, the amount in the buyer's locale, and Embed to pay
it while the link is active (`paymentlinks.embed`: a checkout session and a token that pays this link alone).

Everything the merchant sent is shown as text by the template (auto-escaped) or used where `paymentlinks.branding`
allowed it: the colour as a CSS value set by the nonce'd stylesheet, the banner and favicon as images from their own
https hosts, which the content security policy names one by one.
"""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from checkout import security
from digitalwallets.selectors import google_pay_direct_for
from paymentlinks import branding, embed
from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.selectors import payment_link_get_by_id
from paymentlinks.services import payment_link_sync
from payments.errors import NotFound
from payments.money import format_money_for_buyers, major_units
from payments.rest.envelope import error_response
from transactions.payment_options import payment_options_list

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
    link = payment_link_sync(link=link)  # a payment that ended since (a 3-D Secure challenge) shows how it ended
    payable = link.shown_status == PaymentLinkStatus.ACTIVE
    checkout = embed.page_checkout(link) if payable else None
    nonce = security.new_nonce()
    context = {
        "link": link,
        "status": link.shown_status,
        "payable": checkout is not None,
        "paused": payable and checkout is None,
        "checkout": checkout,
        "methods": " ".join(_methods(link)) if checkout is not None else "",
        # Google Pay's sheet encrypts to the account's own key, as on the demo page; Apple Pay needs nothing here.
        "google_pay": google_pay_direct_for(merchant_account=link.merchant_account) if checkout is not None else None,
        "returned": _returned_from_paying(request, link),
        "api_origin": security.request_origin(request),
        "total": money(link.amount, link.currency),
        "locale": link.locale or DEFAULT_LOCALE,
        "items": _items(link),
        "color": link.merchant_color or DEFAULT_COLOR,
        "csp_nonce": nonce,
    }
    response = render(request, "paymentlinks/page.html", context)
    response["Content-Security-Policy"] = page_policy(nonce=nonce, link=link)
    # The page carries a live token and checkout session: never kept in a cache or a history snapshot.
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _returned_from_paying(request: HttpRequest, link: PaymentLink) -> bool:
    """The buyer whose payment completed the link is back from PayPal (the server adds `transaction_id` to the
    address): the page loads Embed to read that payment with the token the buyer's tab kept, for the receipt. The
    address is the buyer's to edit, so it only decides whether to look: the transaction read back is the receipt."""
    return link.shown_status == PaymentLinkStatus.COMPLETED and request.GET.get("transaction_id") == str(
        link.transaction_id
    )


def _methods(link: PaymentLink) -> list[str]:
    """The methods of the account's payment options for the link's order: Embed offers those it has a control for
    beside cards (gift cards, a processor's button), so the page asks the options once, not Embed again."""
    options = payment_options_list(
        merchant_account=link.merchant_account, amount=link.amount, currency=link.currency, country=link.country
    )
    return [option.method for option in options]


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
    """As strict as Embed's pages: this server's script files (the page's, Embed's and Secure Fields'), its own
    stylesheets and the nonce'd one, frames and requests to this server alone (the card fields, the 3-D Secure
    challenge, the API), images from this server and the merchant's two hosts; no form posts anywhere."""
    images = {branding.url_host(link.merchant_banner_url), branding.url_host(link.merchant_favicon_url)} - {None}
    return security.content_security_policy(
        {
            "default-src": ["'none'"],
            "script-src": ["'self'"],
            "style-src": ["'self'", f"'nonce-{nonce}'"],
            "frame-src": ["'self'"],
            "connect-src": ["'self'"],
            "img-src": ["'self'", *sorted(str(host) for host in images)],
            "base-uri": ["'none'"],
            "form-action": ["'none'"],
            "frame-ancestors": ["'none'"],
        }
    )
