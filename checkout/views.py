"""Browser pages outside the API: the Secure Fields frame, the page that tells Embed a 3-D Secure challenge is over,
and the demo shop that mounts Embed (debug only).

docs/frontend.md ("What the server must provide") is the contract these views implement. Both answer their
errors in the JSON envelope, like every other URL of the server.
"""

import functools
import re
import uuid
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt

from buyers.models import Buyer
from buyers.selectors import buyer_get
from buyers.services import buyer_create
from checkout import security
from checkout.models import CheckoutSession
from checkout.selectors import checkout_session_get_by_id
from checkout.services import checkout_session_create
from digitalwallets.selectors import google_pay_direct_for
from payments.accounts.keys import InvalidKeyError, load_private_pem, mint_token
from payments.accounts.selectors import merchant_account_get
from payments.errors import DuplicateRecord, NotFound, detail
from payments.models import MerchantAccount
from payments.rest.envelope import error_response

SECURE_FIELDS = ("number", "expiry", "security_code")
DEMO_MERCHANT_ACCOUNT = "default"
DEMO_ORDER = {"amount": 1299, "currency": "USD", "country": "US"}
DEMO_TOKEN_SECONDS = 3600
# The channel Embed names its challenge frame by (`SecureFields.helpers.randomId`: base64url or hex).
_CHANNEL = re.compile(r"[A-Za-z0-9_-]{8,64}")
# The answer Embed listens for from its challenge frame (docs/frontend.md, "3-D Secure").
APPROVAL_COMPLETE_MESSAGE = "gr4vy-embed:approval-complete"
# The demo's returning buyer: made on first use, so "Save this card" and the saved-card list have someone to show.
DEMO_BUYER_EXTERNAL_ID = "demo-returning-buyer"


def _safe_methods_only(view: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """GET and HEAD only; anything else is a 405 in the envelope (Django's `require_safe` answers with HTML)."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            response = error_response(405)
            response["Allow"] = "GET, HEAD"
            return response
        return view(request)

    return wrapper


def _query_error(status: int, pointer: str, message: str) -> HttpResponse:
    return error_response(status, message, [detail("query", pointer, message, "invalid")])


@xframe_options_exempt  # `frame-ancestors` decides who may frame it; X-Frame-Options would forbid everyone
@_safe_methods_only
def secure_field_frame(request: HttpRequest) -> HttpResponse:
    """One Secure Fields input, framed by a page at `parent_origin`, which the session's merchant must allow."""
    field = request.GET.get("field", "")
    if field not in SECURE_FIELDS:
        return _query_error(400, "/field", f"field must be one of: {', '.join(SECURE_FIELDS)}.")
    parent_origin = security.normalise_origin(request.GET.get("parent_origin"))
    if parent_origin is None:
        return _query_error(400, "/parent_origin", "parent_origin must be an origin such as https://shop.example.")
    try:
        session = checkout_session_get_by_id(id=request.GET.get("session_id", ""))
    except NotFound as exc:
        return _query_error(404, "/session_id", exc.message)
    # A merchant's page must be on one of its allowed origins, never this server's: the isolation from the merchant
    # page is the whole point. This server's own pages (a payment link's) are the one same-origin parent: the card
    # goes to the server that serves them, and their policy runs only this server's scripts.
    own_origin = security.request_origin(request)
    allowed_origins = [own_origin] if parent_origin == own_origin else _merchant_origins(session, own_origin)
    if parent_origin not in allowed_origins:
        return _query_error(403, "/parent_origin", "parent_origin is not an allowed origin of this merchant account.")

    nonce = security.new_nonce()
    context = {
        "field": field,
        "session_id": str(session.id),
        "parent_origin": parent_origin,
        "api_origin": security.secure_fields_origin(request),
        "csp_nonce": nonce,
    }
    response = render(request, "checkout/secure_field_frame.html", context)
    response["Content-Security-Policy"] = security.secure_field_frame_policy(
        nonce=nonce, frame_ancestors=["'self'"] if parent_origin == own_origin else allowed_origins
    )
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _merchant_origins(session: CheckoutSession, own_origin: str) -> list[str]:
    """The session's merchant's allowed origins, less this server's own (listed there, it grants nothing)."""
    return [
        origin
        for origin in security.normalise_origins(session.merchant_account.allowed_origins)
        if origin != own_origin
    ]


@xframe_options_exempt  # `frame-ancestors` names the one page that may frame it
@_safe_methods_only
def embed_approval_complete(request: HttpRequest) -> HttpResponse:
    """Where a 3-D Secure challenge inside Embed ends (the payment's `redirect_url`): tells the drop-in at
    `parent_origin` that the buyer is back, naming the transaction. It reads nothing and vouches for nothing: the
    drop-in fetches the transaction itself to learn how it ended."""
    parent_origin = security.normalise_origin(request.GET.get("parent_origin"))
    if parent_origin is None:
        return _query_error(400, "/parent_origin", "parent_origin must be an origin such as https://shop.example.")
    channel = request.GET.get("channel", "")
    if not _CHANNEL.fullmatch(channel):
        return _query_error(400, "/channel", "channel must be 8 to 64 letters, digits, '-' or '_'.")
    transaction_id = request.GET.get("transaction_id", "")
    if not _is_uuid(transaction_id):
        return _query_error(400, "/transaction_id", "Must be a transaction id (a UUID).")

    nonce = security.new_nonce()
    message = {"type": APPROVAL_COMPLETE_MESSAGE, "channel": channel, "transactionId": transaction_id}
    context = {"message": message, "parent_origin": parent_origin, "csp_nonce": nonce}
    response = render(request, "checkout/embed_approval_complete.html", context)
    response["Content-Security-Policy"] = security.approval_complete_policy(nonce=nonce, parent_origin=parent_origin)
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    response["X-Content-Type-Options"] = "nosniff"
    return response


@_safe_methods_only
def demo_checkout(request: HttpRequest) -> HttpResponse:
    """A demo shop page: a fresh checkout session and an embed token minted here, as a merchant's server would."""
    if not settings.DEBUG:
        return error_response(404)
    account = merchant_account_get(id=DEMO_MERCHANT_ACCOUNT)
    private_key_pem = _demo_private_key(Path(settings.DEMO_CHECKOUT_PRIVATE_KEY))
    if account is None or private_key_pem is None:
        return error_response(
            503,
            f"The demo needs the '{DEMO_MERCHANT_ACCOUNT}' merchant account and its private key at "
            f"{settings.DEMO_CHECKOUT_PRIVATE_KEY}: run `make run` once.",
        )
    page_origin = security.request_origin(request)
    api_origin = security.demo_api_origin(request)
    if page_origin not in security.normalise_origins(account.allowed_origins):
        return error_response(403, f"{page_origin} is not an allowed origin of the '{account.pk}' merchant account.")
    if page_origin == api_origin:
        return error_response(
            503,
            "Open the demo at localhost or 127.0.0.1, or set SECURE_FIELDS_ORIGIN to another origin of this server.",
        )

    buyer_id = request.GET.get("buyer_id") or None
    if buyer_id is not None and not _is_uuid(buyer_id):
        return _query_error(400, "/buyer_id", "Must be a buyer id (a UUID).")

    session = checkout_session_create(merchant_account=account, expires_in=DEMO_TOKEN_SECONDS)
    # A returning buyer (`?buyer_id=`): the token is pinned to them too, so Embed lists their saved cards.
    pins = {"amount": DEMO_ORDER["amount"], "currency": DEMO_ORDER["currency"]}
    token = mint_token(
        private_key_pem,
        scopes=["embed"],
        embed={**pins, "buyer_id": buyer_id} if buyer_id else pins,
        checkout_session_id=str(session.id),
        expires_in=DEMO_TOKEN_SECONDS,
    )
    nonce = security.new_nonce()
    context = {
        **DEMO_ORDER,
        "token": token,
        "session_id": str(session.id),
        "api_origin": api_origin,
        "buyer_id": buyer_id or "",
        # The other view of the demo: the returning buyer from a new one, and back.
        "returning_buyer_id": "" if buyer_id else str(_demo_buyer(account).id),
        # Google Pay's sheet encrypts to the account's own key: what a shop's server reads from its wallet.
        "google_pay": google_pay_direct_for(merchant_account=account),
    }
    response = render(request, "checkout/demo_checkout.html", {**context, "csp_nonce": nonce})
    response["Content-Security-Policy"] = security.demo_page_policy(nonce=nonce, api_origin=api_origin)
    # The page carries a live token and session: never keep it in a cache or history snapshot.
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


def _demo_buyer(account: MerchantAccount) -> Buyer:
    """The demo's returning buyer, created the first time the demo needs them."""
    try:
        return buyer_get(merchant_account=account, external_identifier=DEMO_BUYER_EXTERNAL_ID)
    except NotFound:
        pass
    try:
        return buyer_create(
            merchant_account=account, external_identifier=DEMO_BUYER_EXTERNAL_ID, display_name="Demo returning buyer"
        )
    except DuplicateRecord:  # another tab created them meanwhile
        return buyer_get(merchant_account=account, external_identifier=DEMO_BUYER_EXTERNAL_ID)


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _demo_private_key(path: Path) -> str | None:
    """The PEM `make run` wrote, or None when it is missing or unusable."""
    try:
        pem = path.read_text()
    except OSError:
        return None
    try:
        load_private_pem(pem)
    except InvalidKeyError:
        return None
    return pem
