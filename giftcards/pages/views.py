"""The page of an issued card (`GiftCardIssuance.url`): its number and PIN, shown once.

GET shows what the card is and a button; only the button's POST opens the sealed copy. Mail scanners and chat apps
fetch a link to preview it: were the first GET the showing, a preview would spend it before the buyer looked. The
address is the credential (the id and a keyed hash of it), so the form needs no other token. Anything but a card
still waiting (a wrong address, shown already, too late) is the same "no longer available" page, a 404: the page is
no oracle for which issuances exist.
"""

from __future__ import annotations

import secrets
import uuid

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt

from giftcards.issuances import gift_card_issuance_reveal, gift_card_issuance_waiting
from giftcards.models import GiftCardIssuance
from payments.middleware.envelope import OWN_ERROR_PAGE
from payments.money import format_money_for_buyers

TEMPLATE = "giftcards/issuance_page.html"


def _secured(response: HttpResponse, *, nonce: str) -> HttpResponse:
    """No script, no frame, no cache, no referrer (the address holds the token), no search engine."""
    response["Content-Security-Policy"] = (
        f"default-src 'none'; style-src 'nonce-{nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    )
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    response["X-Content-Type-Options"] = "nosniff"
    response["X-Robots-Tag"] = "noindex"
    return response


def _terms(issuance: GiftCardIssuance) -> dict[str, object]:
    card = issuance.issued_card
    return {
        "merchant_name": issuance.merchant_account.display_name or issuance.merchant_account.pk,
        "amount": format_money_for_buyers(issuance.amount, issuance.currency),
        "theme": issuance.theme,
        "expires": card.expires_at,
    }


def _render(request: HttpRequest, context: dict[str, object], *, status: int = 200) -> HttpResponse:
    nonce = secrets.token_urlsafe(16)
    response = render(request, TEMPLATE, {**context, "csp_nonce": nonce}, status=status)
    setattr(response, OWN_ERROR_PAGE, True)  # a page for the buyer, not the API's JSON envelope
    return _secured(response, nonce=nonce)


@csrf_exempt  # the address is the credential: a forged POST could only show the card to whoever holds the address
def issuance_page(request: HttpRequest, issuance_id: uuid.UUID, token: str) -> HttpResponse:
    """GET: the card's terms and a button while it can be shown. POST: its number and PIN, once."""
    if request.method == "GET":
        issuance = gift_card_issuance_waiting(issuance_id=issuance_id, token=token)
        if issuance is not None:
            return _render(request, {"state": "waiting", **_terms(issuance)})
    elif request.method == "POST":
        revealed = gift_card_issuance_reveal(issuance_id=issuance_id, token=token)
        if revealed is not None:
            return _render(
                request,
                {
                    "state": "shown",
                    "number": _grouped(revealed.number),
                    "pin": revealed.pin,
                    **_terms(revealed.issuance),
                },
            )
    else:
        return HttpResponseNotAllowed(["GET", "POST"])
    return _render(request, {"state": "gone"}, status=404)


def _grouped(number: str) -> str:
    """The number in groups of four, as printed on a card, easier to read and to type."""
    return " ".join(number[i : i + 4] for i in range(0, len(number), 4))
