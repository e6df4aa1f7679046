"""What a token's claims allow a new transaction to be.

An `embed` claim pins the amount and the currency; a `checkout_session_id` claim pins the checkout session the
transaction must pay with, unless gift cards pay all of it (then there is no payment method to pin) or a wallet's token
pays (the buyer's own, like a card typed into the session). A token used
through the `embed` scope alone must pin at least the amount and the currency, or a leaked browser token could
charge anything. The buyer a claim pins, and everything of a buyer the transaction names, is `buyers.access`'s to
check (one rule for every endpoint), in `transaction_create`.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from uuid import UUID

from rest_framework.exceptions import PermissionDenied

from buyers.access import BuyerAccess, buyer_access
from payments.rest.authentication import ApiPrincipal
from transactions.models import Transaction
from transactions.requests import (
    CheckoutSessionRequest,
    RedirectPaymentRequest,
    StoredPaymentMethodRequest,
    TransactionRequest,
    WalletPaymentRequest,
)

PINNED_FIELDS = ("amount", "currency")


def _same(pinned: Any, requested: Any) -> bool:
    # Claims are JSON; compare ids as text so "uuid" and UUID("uuid") match.
    return str(pinned) == str(requested) if requested is not None else pinned is None


def transaction_access(principal: ApiPrincipal) -> BuyerAccess:
    """Which buyer a new transaction may name: a token without `transactions.write` is confined to its pinned one."""
    return buyer_access(principal, resource="transactions")


def require_pinned_claims(principal: ApiPrincipal, request: TransactionRequest, *, access: BuyerAccess) -> None:
    """Raise 403 unless the requested transaction has the amount and currency the token pins and pays with the
    checkout session it pins (or with gift cards alone)."""
    pins = principal.embed
    if access.confined and not all(name in pins for name in PINNED_FIELDS):
        raise PermissionDenied("An embed token must pin the amount and currency of the transaction it creates.")
    for name in PINNED_FIELDS:
        if name in pins and not _same(pins[name], getattr(request, name)):
            raise PermissionDenied(f"This token only allows a transaction with the {name} it was issued for.")
    session_id = principal.checkout_session_id
    if session_id is None:
        return
    method = request.payment_method
    if method is None and request.gift_cards:
        # Gift cards paying the whole (pinned) amount leave the payment method out (`transactions.services.create`
        # refuses one then); like a card typed into the session's fields, they are the buyer's own input, and a
        # stored gift card is looked up among the pinned buyer's only (`buyers.access`).
        return
    if isinstance(method, WalletPaymentRequest):
        # Apple Pay's or Google Pay's token, made by the buyer's wallet for this checkout's page and sealed to the
        # account's own key: the buyer's own input, like a card typed into the session's fields (Embed's buttons);
        # the transaction keeps the pinned session (`pinned_session`).
        return
    if isinstance(method, StoredPaymentMethodRequest) and access.pins:
        # The pinned buyer's own saved card, which a checkout offers beside the session's card fields (Embed); the
        # method is looked up among that buyer's only (`buyers.access`).
        return
    if isinstance(method, RedirectPaymentRequest):
        # PayPal chosen in the drop-in: nothing of the merchant's or a buyer's is used, and no money moves until the
        # buyer approves at the processor; the transaction keeps the pinned session (`pinned_session`).
        return
    if not isinstance(method, CheckoutSessionRequest) or str(method.session_id) != str(session_id):
        raise PermissionDenied("This token only allows paying with the checkout session it was issued for.")


def pinned_session(principal: ApiPrincipal, request: TransactionRequest) -> TransactionRequest:
    """`request` with a payment the buyer makes in the checkout without its card fields (approved at the processor,
    or a wallet's token) tied to the checkout session the token pins, so the drop-in reads how it ended once the buyer
    is back from the processor or a 3-D Secure challenge (`embed_may_read`)."""
    method = request.payment_method
    session_id = principal.checkout_session_id
    if session_id is None or not isinstance(method, RedirectPaymentRequest | WalletPaymentRequest):
        return request
    try:
        tied = dataclasses.replace(method, checkout_session_id=UUID(session_id))
    except ValueError:  # a claim that names no session: nothing to tie, and nothing this token may read back
        return request
    return dataclasses.replace(request, payment_method=tied)


def embed_may_read(principal: ApiPrincipal, txn: Transaction, *, access: BuyerAccess) -> bool:
    """Whether a token confined to `embed` may read `txn`: only a transaction its own checkout could have made, so a
    drop-in can learn how a payment that waited for the buyer ended (docs/frontend.md). That is the amount and
    currency it pins, paid with the checkout session it pins or belonging to the buyer it pins."""
    pins = principal.embed
    if not all(name in pins and _same(pins[name], getattr(txn, name)) for name in PINNED_FIELDS):
        return False
    session_id = principal.checkout_session_id
    paid_with_session = session_id is not None and _same(session_id, txn.checkout_session_id)
    return paid_with_session or (bool(access.pins) and access.owns(txn.buyer))


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
