"""What a token's claims allow a new transaction to be.

An `embed` claim pins the amount, the currency and, when present, the buyer; a `checkout_session_id`
claim pins the checkout session the transaction must pay with. A token used through the `embed` scope
alone must pin at least the amount and the currency, or a leaked browser token could charge anything.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import PermissionDenied

from payments.rest.authentication import ApiPrincipal
from transactions.requests import CheckoutSessionRequest, StoredPaymentMethodRequest, TransactionRequest

PINNED_FIELDS = ("amount", "currency", "buyer_id", "buyer_external_identifier")
_REQUIRED_FOR_EMBED = ("amount", "currency")
_BUYER_PINS = ("buyer_id", "buyer_external_identifier")


def _same(pinned: Any, requested: Any) -> bool:
    # Claims are JSON; compare ids as text so "uuid" and UUID("uuid") match.
    return str(pinned) == str(requested) if requested is not None else pinned is None


def require_pinned_claims(principal: ApiPrincipal, request: TransactionRequest) -> None:
    """Raise 403 unless the requested transaction matches everything the token pins."""
    embed_only = principal.is_embed and not principal.has_scope("transactions.write")
    pins = principal.embed
    if embed_only and not all(name in pins for name in _REQUIRED_FOR_EMBED):
        raise PermissionDenied("An embed token must pin the amount and currency of the transaction it creates.")
    for name in PINNED_FIELDS:
        if name in pins and not _same(pins[name], getattr(request, name)):
            raise PermissionDenied(f"This token only allows a transaction with the {name} it was issued for.")
    stored = isinstance(request.payment_method, StoredPaymentMethodRequest)
    if embed_only and (stored or request.store) and not any(pins.get(name) for name in _BUYER_PINS):
        # Its buyer pinned, a stored method is looked up among that buyer's only (transactions.requests).
        raise PermissionDenied("An embed token must pin the buyer whose stored payment methods it uses or stores.")
    session_id = principal.checkout_session_id
    if session_id is None:
        return
    if stored and any(pins.get(name) for name in _BUYER_PINS):
        # The pinned buyer's own saved card, which a checkout offers beside the session's card fields (Embed); the
        # method is looked up among that buyer's only.
        return
    method = request.payment_method
    if not isinstance(method, CheckoutSessionRequest) or str(method.session_id) != str(session_id):
        raise PermissionDenied("This token only allows paying with the checkout session it was issued for.")


def pinned_checkout_values(principal: ApiPrincipal, values: dict[str, Any]) -> dict[str, Any]:
    """`values` (a checkout's amount and currency) with what the token pins filled in where they are absent; raise
    403 when a value differs from its pin, so an embed token only ever asks about its own checkout."""
    pins = principal.embed
    merged = dict(values)
    for name in ("amount", "currency"):
        if name not in pins:
            continue
        if merged.get(name) is None:
            merged[name] = pins[name]
        elif not _same(pins[name], merged[name]):
            raise PermissionDenied(f"This token only allows the {name} it was issued for.")
    return merged
