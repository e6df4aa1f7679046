"""The 3-D Secure challenge page: what the sandbox's issuer shows the buyer (docs/three-d-secure.md).

GET shows the page once; its form POSTs back here with the page's own form token (a synchronizer token kept as a
keyed digest, not a cookie: the page runs in a frame on the merchant's origin, where third-party cookies are not
sent). The answer is a 303 to the payment's `redirect_url` with `transaction_id` and `transaction_status` added.
Anything else (an unknown or used token, an expired challenge, a form from elsewhere) is an honest page with a 4xx
status, and nothing changes.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt

from checkout import security
from payments.connectors import BuyerAction
from payments.errors import Conflict, DomainError
from payments.middleware.envelope import OWN_ERROR_PAGE
from payments.money import format_money_for_buyers
from paymentservices.processors import processor_get
from transactions.models import Transaction
from transactions.services.challenges import ChallengePage, challenge_complete, challenge_open
from transactions.services.redirects import redirect_return

TEMPLATE = "transactions/three_d_secure_challenge.html"


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None


def _secured(
    response: HttpResponse,
    *,
    nonce: str,
    frame_ancestors: list[str],
    form_to: str | None,
    action: BuyerAction | None = None,
) -> HttpResponse:
    """The page may be framed by the merchant's own origins only (its `allowed_origins`, where Embed runs), and its
    form may only post here and be redirected to the merchant's `redirect_url`. It runs no script, except for the
    processor's own authentication: then its own (by nonce) and the processor's, which may call and frame its own
    origin (and the ones the processor names) and nothing else."""
    policy = {
        "default-src": ["'none'"],
        "style-src": [f"'nonce-{nonce}'"],
        "img-src": ["'self'", "data:"],
        "base-uri": ["'none'"],
        "form-action": ["'self'", *([form_to] if form_to else [])],
        "frame-ancestors": ["'self'", *frame_ancestors],
    }
    script_origin = _origin(action.script_url) if action is not None else None
    if action is not None and script_origin is not None:
        policy["script-src"] = [f"'nonce-{nonce}'", script_origin]
        policy["connect-src"] = [script_origin, *action.connect_origins]
        policy["frame-src"] = [script_origin, *action.frame_origins]
    response["Content-Security-Policy"] = security.content_security_policy(policy)
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"  # the page's address holds its token
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _unavailable(request: HttpRequest, error: DomainError) -> HttpResponse:
    nonce = security.new_nonce()
    response = render(request, TEMPLATE, {"error": error.message, "csp_nonce": nonce}, status=error.status)
    setattr(response, OWN_ERROR_PAGE, True)  # an honest page for the buyer, not the API's JSON envelope
    return _secured(response, nonce=nonce, frame_ancestors=[], form_to=None)


def _page(request: HttpRequest, page: ChallengePage) -> HttpResponse:
    txn: Transaction = page.transaction
    nonce = security.new_nonce()
    context: dict[str, object] = {
        "merchant_name": txn.merchant_account.display_name or txn.merchant_account.pk,
        "amount": format_money_for_buyers(txn.amount, txn.currency),
        "card_last4": txn.card_last4,
        "form_token": page.form_token,
        "csp_nonce": nonce,
    }
    action = page.buyer_action
    template = TEMPLATE
    if action is not None:  # what the processor's script needs: public by design, and this page is never cached
        context["action"] = {
            "script_url": action.script_url,
            "publishable_key": action.publishable_key,
            "client_secret": action.client_secret,
        }
        template = _buyer_page(txn)
    response = render(request, template, context)
    return _secured(
        response,
        nonce=nonce,
        frame_ancestors=security.normalise_origins(txn.merchant_account.allowed_origins),
        form_to=_origin(page.challenge.redirect_url),
        action=action,
    )


def _buyer_page(txn: Transaction) -> str:
    """The page of the processor's own authentication, as its processor names it (`Processor.buyer_page`)."""
    processor = processor_get(txn.payment_service.definition_id) if txn.payment_service is not None else None
    if processor is None or processor.buyer_page is None:
        raise Conflict("This payment's processor has no page for the buyer.")
    return processor.buyer_page


def with_outcome(url: str, txn: Transaction) -> str:
    """`url` with `transaction_id` and `transaction_status` added to its own query (kept as it was)."""
    parts = urlsplit(url)
    query = [
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if name not in ("transaction_id", "transaction_status")
    ]
    query += [("transaction_id", str(txn.pk)), ("transaction_status", txn.status)]
    return urlunsplit(parts._replace(query=urlencode(query)))


@xframe_options_exempt  # `frame-ancestors` names who may frame it; X-Frame-Options would forbid everyone
@csrf_exempt  # protected by its own form token, which a framed page can send (see the module's docstring)
def challenge_page(request: HttpRequest, token: str) -> HttpResponse:
    """GET: the page, once. POST: the buyer's answer (`action` complete or cancel) with the page's form token; for
    the processor's own authentication, the page's word that the buyer is done (the processor's answer decides)."""
    try:
        if request.method == "GET":
            return _page(request, challenge_open(token=token))
        if request.method == "POST":
            txn, redirect_url = challenge_complete(
                token=token,
                form_token=request.POST.get("form_token", ""),
                canceled=request.POST.get("action") == "cancel",
            )
            return HttpResponseRedirect(with_outcome(redirect_url, txn), status=303)
    except DomainError as error:
        return _unavailable(request, error)
    response = _unavailable(request, DomainError("This page takes GET and POST only."))
    response.status_code = 405
    response["Allow"] = "GET, POST"
    return response


def _returned(request: HttpRequest, token: str, *, canceled: bool) -> HttpResponse:
    """The buyer is back from PayPal (its `token` query parameter names its order): a 303 to the payment's
    `redirect_url` with `transaction_id` and `transaction_status`, or an honest page with a 4xx status when the return
    cannot be used (unknown, used or expired, another payment's order), and nothing changes."""
    if request.method != "GET":
        response = _unavailable(request, DomainError("This page takes GET only."))
        response.status_code = 405
        response["Allow"] = "GET"
        return response
    try:
        txn, redirect_url = redirect_return(
            token=token, processor_token=request.GET.get("token", ""), canceled=canceled
        )
    except DomainError as error:
        return _unavailable(request, error)
    response = HttpResponseRedirect(with_outcome(redirect_url, txn), status=303)
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"  # the page's address holds its token
    return response


def approval_return(request: HttpRequest, token: str) -> HttpResponse:
    return _returned(request, token, canceled=False)


def approval_cancel(request: HttpRequest, token: str) -> HttpResponse:
    return _returned(request, token, canceled=True)
