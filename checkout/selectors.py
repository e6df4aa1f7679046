"""Reads of checkout sessions. An expired session is never returned: it is deleted on sight and not found."""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils import timezone

from checkout.models import CheckoutSession
from checkout.services import checkout_session_delete
from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import DomainError, NotFound
from payments.vault.models import VaultedCard

_NOT_FOUND = "The checkout session could not be found."


def _live(sessions: QuerySet[CheckoutSession], id: uuid.UUID | str) -> CheckoutSession:
    try:
        session = sessions.get(pk=id)
    except (CheckoutSession.DoesNotExist, ValueError, ValidationError) as exc:
        raise NotFound(_NOT_FOUND) from exc
    if session.expires_at <= timezone.now():
        # Lazily what `purge_expired` would do later: the card data goes the moment anyone asks.
        checkout_session_delete(session=session)
        raise NotFound(_NOT_FOUND)
    return session


def checkout_session_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> CheckoutSession:
    """The account's live session with its card (or its stored method's); another account's session is not found,
    like a missing one."""
    sessions = account_rows(CheckoutSession, merchant_account).select_related("card", "stored_card")
    return _live(sessions, id)


def checkout_session_get_by_id(*, id: uuid.UUID | str) -> CheckoutSession:
    """The live session with this id, whatever its account: for Secure Fields, where the id is the credential."""
    return _live(CheckoutSession.objects.select_related("card", "merchant_account"), id)


def checkout_session_merchant_account_id(*, id: uuid.UUID | str) -> str | None:
    """The account of the session with this id, live or expired, or None: a plain read with no purge on sight."""
    try:
        return CheckoutSession.objects.filter(pk=id).values_list("merchant_account_id", flat=True).first()
    except (ValueError, ValidationError):
        return None


def checkout_session_card(*, merchant_account: MerchantAccount, session_id: uuid.UUID | str) -> VaultedCard:
    """The card Secure Fields stored on the account's live session, for a transaction to pay with.

    NotFound when the session is missing, expired, another account's, or has no card yet; a 400 when it holds a
    stored payment method instead (that card is stored already, and may be another buyer's). Pass the card to
    `payments.vault.services.vaulted_card_reveal(card=..., consume_security_code=True)` to authorize.
    """
    session = checkout_session_get(merchant_account=merchant_account, id=session_id)
    if session.payment_method_id is not None:
        raise DomainError(
            "The checkout session holds a stored payment method, not new card details: that card is stored already.",
            pointer="/id",
        )
    if session.card is None:
        raise NotFound("The checkout session has no card details yet.")
    return session.card


def checkout_session_merchant_account(*, id: str) -> MerchantAccount | None:
    """The account owning the live session `id`, or None; reads only (CORS asks before the view runs)."""
    try:
        return MerchantAccount.objects.filter(
            checkout_sessions__pk=id, checkout_sessions__expires_at__gt=timezone.now()
        ).first()
    except (ValueError, ValidationError):
        return None
