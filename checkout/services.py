"""Writes of checkout sessions: the API, the admin and `purge_expired` all come through here."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from checkout.models import CheckoutSession
from checkout.stored_methods import stored_method_card
from payments.accounts.models import MerchantAccount
from payments.errors import DomainError, NotFound
from payments.partial import UNCHANGED, Unchanged, changed_fields
from payments.vault import cards
from payments.vault.services import (
    vaulted_card_shorten_expiry,
    vaulted_card_store,
    vaulted_cards_delete,
    vaulted_security_code_store,
    vaulted_security_codes_delete,
)

DEFAULT_EXPIRES_IN = 3600
MIN_EXPIRES_IN = 3600
MAX_EXPIRES_IN = 86400
# Once card details arrive, the session (and the card with it) lives at most this much longer.
FIELDS_TTL = timedelta(minutes=5)
UPDATABLE_FIELDS = (
    "amount",
    "currency",
    "country",
    "cart_items",
    "metadata",
    "buyer",
    "airline",
    "intent",
    "payment_source",
    "merchant_initiated",
    "is_subsequent_payment",
)
_GONE = "The checkout session could not be found."


def _check_fields(changes: dict[str, Any]) -> None:
    unknown = set(changes) - set(UPDATABLE_FIELDS)
    if unknown:
        raise TypeError(f"Not checkout session fields: {sorted(unknown)}")


def _lifetime(expires_in: int) -> timedelta:
    if not MIN_EXPIRES_IN <= expires_in <= MAX_EXPIRES_IN:
        raise DomainError(
            f"expires_in must be between {MIN_EXPIRES_IN} and {MAX_EXPIRES_IN} seconds.", pointer="/expires_in"
        )
    return timedelta(seconds=expires_in)


def _lock(session: CheckoutSession, *, live_at: datetime | None = None) -> CheckoutSession:
    """Re-read `session` under a row lock (`live_at`: and only if it has not expired by then), or NotFound."""
    rows = CheckoutSession.objects.select_related("card", "merchant_account").select_for_update(of=("self",))
    if live_at is not None:
        rows = rows.filter(expires_at__gt=live_at)
    locked = rows.filter(pk=session.pk).first()
    if locked is None:
        raise NotFound(_GONE)
    return locked


@transaction.atomic
def checkout_session_create(
    *, merchant_account: MerchantAccount, expires_in: int = DEFAULT_EXPIRES_IN, **details: Any
) -> CheckoutSession:
    """Create a session that expires `expires_in` seconds (3600..86400) from now."""
    _check_fields(details)
    session = CheckoutSession(
        merchant_account=merchant_account, expires_at=timezone.now() + _lifetime(expires_in), **details
    )
    session.save(force_insert=True)
    return session


@transaction.atomic
def checkout_session_update(
    *,
    session: CheckoutSession,
    expires_in: int | None = None,
    amount: int | Unchanged | None = UNCHANGED,
    currency: str | Unchanged | None = UNCHANGED,
    country: str | Unchanged | None = UNCHANGED,
    cart_items: list[dict[str, Any]] | Unchanged | None = UNCHANGED,
    metadata: dict[str, str] | Unchanged | None = UNCHANGED,
    buyer: dict[str, Any] | Unchanged | None = UNCHANGED,
    airline: dict[str, Any] | Unchanged | None = UNCHANGED,
    intent: str | Unchanged | None = UNCHANGED,
    payment_source: str | Unchanged | None = UNCHANGED,
    merchant_initiated: bool | Unchanged | None = UNCHANGED,
    is_subsequent_payment: bool | Unchanged | None = UNCHANGED,
) -> CheckoutSession:
    """Apply the given fields (absent keep, null clears); `expires_in` restarts the clock, never past a card's 5 min."""
    changes = changed_fields(
        amount=amount,
        currency=currency,
        country=country,
        cart_items=cart_items,
        metadata=metadata,
        buyer=buyer,
        airline=airline,
        intent=intent,
        payment_source=payment_source,
        merchant_initiated=merchant_initiated,
        is_subsequent_payment=is_subsequent_payment,
    )
    now = timezone.now()
    session = _lock(session, live_at=now)
    for name, value in changes.items():
        setattr(session, name, value)
    update_fields = [*changes, "updated_at"]
    if expires_in is not None:
        expires_at = now + _lifetime(expires_in)
        if session.card is not None or session.payment_method_id is not None:  # fields arrived: never past their TTL
            expires_at = min(expires_at, session.expires_at)
        if session.card is not None:
            vaulted_card_shorten_expiry(card=session.card, expires_at=expires_at)
        session.expires_at = expires_at
        update_fields.append("expires_at")
    session.save(update_fields=update_fields)
    return session


@transaction.atomic
def checkout_session_store_fields(
    *,
    session: CheckoutSession,
    number: str,
    expiration_month: int,
    expiration_year: int,
    security_code: str | None = None,
    postal_code: str | None = None,
) -> CheckoutSession:
    """Vault the card in place of anything the session held; the session then expires within `FIELDS_TTL`."""
    now = timezone.now()
    session = _lock(session, live_at=now)
    previous = _held_card_data(session)
    session.expires_at = min(session.expires_at, now + FIELDS_TTL)
    session.card = vaulted_card_store(
        merchant_account=session.merchant_account,
        number=number,
        expiration_month=expiration_month,
        expiration_year=expiration_year,
        security_code=security_code,
        expires_at=session.expires_at,
    )
    session.payment_method_id = session.stored_card = session.security_code = None
    session.postal_code = postal_code
    session.save(update_fields=[*_FIELDS_HELD, "postal_code", "expires_at", "updated_at"])
    _delete_card_data([previous])
    return session


@transaction.atomic
def checkout_session_store_payment_method(
    *,
    session: CheckoutSession,
    payment_method_id: uuid.UUID,
    security_code: str | None = None,
    postal_code: str | None = None,
) -> CheckoutSession:
    """Hold a stored payment method of the session's account in place of anything the session held, and the security
    code the buyer typed for it, sealed in the vault like a card's until the payment's authorization; the session
    then expires within `FIELDS_TTL`. A method the account has not, or cannot pay with, is refused at
    `/payment_method/id`; a code of the wrong length for its card at `/payment_method/security_code`."""
    now = timezone.now()
    session = _lock(session, live_at=now)
    card = stored_method_card(
        merchant_account=session.merchant_account, id=payment_method_id, pointer="/payment_method/id"
    )
    if security_code is not None:
        try:
            cards.validate_security_code(security_code, card.scheme)
        except cards.CardDataError as error:
            raise DomainError(error.message, pointer="/payment_method/security_code") from None
    previous = _held_card_data(session)
    session.expires_at = min(session.expires_at, now + FIELDS_TTL)
    session.card = None
    session.payment_method_id, session.stored_card = payment_method_id, card
    session.security_code = (
        None
        if security_code is None
        else vaulted_security_code_store(card=card, security_code=security_code, expires_at=session.expires_at)
    )
    session.postal_code = postal_code
    session.save(update_fields=[*_FIELDS_HELD, "postal_code", "expires_at", "updated_at"])
    _delete_card_data([previous])
    return session


# What Secure Fields leaves on a session: a card, or a stored method (its id, its card, the code typed for it).
_FIELDS_HELD = ["card", "payment_method_id", "stored_card", "security_code"]


def _held_card_data(session: CheckoutSession) -> tuple[uuid.UUID | None, uuid.UUID | None]:
    """The card data the session owns (its own card, a typed code), to delete once nothing points at it: never the
    stored method's card, which is the method's."""
    return session.card_id, session.security_code_id


def _delete_card_data(held: Iterable[tuple[uuid.UUID | None, uuid.UUID | None]]) -> None:
    rows = list(held)
    vaulted_cards_delete(card_ids=[card_id for card_id, _ in rows if card_id is not None])
    vaulted_security_codes_delete(code_ids=[code_id for _, code_id in rows if code_id is not None])


@transaction.atomic
def checkout_session_delete(*, session: CheckoutSession) -> None:
    """Delete the session and its card data in one transaction; deleting twice is harmless."""
    try:
        locked = _lock(session)
    except NotFound:
        return
    held = _held_card_data(locked)
    locked.delete()
    _delete_card_data([held])


def checkout_sessions_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Purge job: delete up to `batch_size` sessions past `expires_at`, with their card data; return how many."""
    with transaction.atomic():
        due = CheckoutSession.objects.filter(expires_at__lte=now).order_by("expires_at")
        rows = list(
            due.select_for_update(skip_locked=True).values_list("pk", "card_id", "security_code_id")[:batch_size]
        )
        CheckoutSession.objects.filter(pk__in=[pk for pk, _, _ in rows]).delete()
        _delete_card_data((card_id, code_id) for _, card_id, code_id in rows)
    return len(rows)
