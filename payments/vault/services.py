"""Writes of vaulted cards: the only code that seals, opens, rotates or deletes stored card data.

Checkout sessions and transactions keep a `VaultedCard` reference and never a number or security code of
their own. The contract for callers (checkout today, transactions for raw `card` payment methods):

- Validate input with `payments.shapes.cards` first; `vaulted_card_store` re-checks it and raises
  `CardDataError` (a programming error at that point, not a client one).
- Reference `VaultedCard` with `on_delete=models.SET_NULL`: `purge_expired` deletes rows past `expires_at`.
- Open a card only to hand it to a connector: `vaulted_card_reveal(card=..., consume_security_code=True)`
  returns the `CardDetails` and deletes the security code in the same transaction, so the code is gone
  from the first authorization attempt on, even when two attempts race.
- A code the buyer types for a card kept for later (a stored payment method's, through a checkout session) is a
  `VaultedSecurityCode` of its own beside that card, never on it: `vaulted_security_code_store`, then
  `vaulted_security_code_consume` at that payment's authorization, which deletes it as it reads it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeVar

from django.db import transaction
from django.db.models import Model, QuerySet
from django.utils import timezone

from payments.accounts.models import MerchantAccount
from payments.bins.facts import MAX_BIN_LENGTH, UNKNOWN, CardFacts
from payments.bins.selectors import bin_lookup
from payments.connectors.base import CardDetails
from payments.errors import NotFound
from payments.vault import cards, crypto
from payments.vault.models import VaultedCard, VaultedSecurityCode

M = TypeVar("M", bound=Model)

# The longest a security code may wait for its authorization, whatever the card's own expiry: well past a
# checkout session's 5 minutes after fields arrive and a 3-D Secure challenge, far short of "stored".
SECURITY_CODE_MAX_AGE = timedelta(hours=1)

_EXPIRED = "The stored card data has expired."


def _context(card_id: uuid.UUID, part: str) -> str:
    """Bind a ciphertext to one row and one field, so it cannot be moved to another and still open."""
    return f"vaulted-card:{card_id}:{part}"


# No transaction of its own: it writes one row, which is atomic alone, and inside a caller's transaction a
# savepoint would cost two statements on every payment.
def vaulted_card_store(
    *,
    merchant_account: MerchantAccount,
    number: str,
    expiration_month: int,
    expiration_year: int,
    security_code: str | None = None,
    expires_at: datetime,
    facts: CardFacts | None = None,
) -> VaultedCard:
    """Seal a validated card until `expires_at`; its security code lives at most `SECURITY_CODE_MAX_AGE`. What the
    BIN table says of the card (type, country, issuer) is kept with it: `facts` when the caller already looked it up
    (`vaulted_card_facts`), else one lookup of its first 8 digits.

    `number` must already have passed `payments.vault.cards` validation (13-19 digits, Luhn) and `security_code`
    the length check for the card's scheme; anything else raises `CardDataError`.
    """
    display = cards.card_display(number)
    cards.validate_card_number(number)
    if security_code is not None:
        cards.validate_security_code(security_code, display["scheme"])
    if not 1 <= expiration_month <= 12:
        raise cards.CardDataError("Expiration month must be between 1 and 12.", code="invalid_month")
    card = VaultedCard(
        merchant_account=merchant_account,
        fingerprint=crypto.fingerprint(number),
        scheme=display["scheme"],
        bin=display["bin"],
        last4=display["last4"],
        expiration_month=expiration_month,
        expiration_year=expiration_year,
        expires_at=expires_at,
    )
    _set_facts(card, facts if facts is not None else vaulted_card_facts(number=number))
    _seal(card, number=number, security_code=security_code)
    if security_code is not None:
        card.security_code_expires_at = min(expires_at, timezone.now() + SECURITY_CODE_MAX_AGE)
    card.save(force_insert=True)
    return card


def vaulted_card_facts(*, number: str) -> CardFacts:
    """What the BIN table says of a card number: only its first 8 digits leave the vault, for one lookup."""
    return bin_lookup(number[:MAX_BIN_LENGTH]) if cards.luhn_valid(number) else UNKNOWN


def _set_facts(card: VaultedCard, facts: CardFacts) -> None:
    # The scheme stays the vault's own (it decides the security code's length); the table adds what it cannot know.
    card.card_type = facts.card_type
    card.country = facts.country
    card.issuer_name = facts.issuer_name


def _seal(card: VaultedCard, *, number: str, security_code: str | None) -> None:
    """Encrypt the number (and code) onto `card` under the current key."""
    card.encrypted_number = crypto.encrypt(number, context=_context(card.id, "number"))
    card.encrypted_security_code = (
        None if security_code is None else crypto.encrypt(security_code, context=_context(card.id, "security_code"))
    )
    card.key_id = crypto.current_key_id()


def _live_security_code(card: VaultedCard, now: datetime) -> str | None:
    """The clear security code, or None when there is none or its deadline has passed."""
    deadline = card.security_code_expires_at  # never None beside a code: a check constraint holds them together
    if card.encrypted_security_code is None or deadline is None or deadline <= now:
        return None
    return crypto.decrypt(card.encrypted_security_code, context=_context(card.id, "security_code"))


@transaction.atomic
def vaulted_card_reveal(*, card: VaultedCard, consume_security_code: bool = False) -> CardDetails:
    """Open the card for a connector call; with `consume_security_code` the code is deleted as it is read.

    Reads the row afresh (under a lock when consuming), so a code another request already used or discarded
    is not returned. A card past `expires_at`, or deleted, is `NotFound`. Never log or store the result.
    """
    now = timezone.now()
    rows = VaultedCard.objects.select_for_update() if consume_security_code else VaultedCard.objects
    fresh = rows.filter(pk=card.pk, expires_at__gt=now).first()
    if fresh is None:
        raise NotFound(_EXPIRED)
    details = CardDetails(
        number=crypto.decrypt(fresh.encrypted_number, context=_context(fresh.id, "number")),
        expiration_month=fresh.expiration_month,
        expiration_year=fresh.expiration_year,
        security_code=_live_security_code(fresh, now),
        scheme=fresh.scheme,
    )
    if consume_security_code:
        _forget_security_code(card)
    return details


def _forget_security_code(card: VaultedCard) -> None:
    VaultedCard.objects.filter(pk=card.pk).update(encrypted_security_code=None, security_code_expires_at=None)
    card.encrypted_security_code = None
    card.security_code_expires_at = None


@transaction.atomic
def vaulted_card_discard_security_code(*, card: VaultedCard) -> None:
    """Delete the card's security code, if it still has one; call it at the first authorization attempt."""
    _forget_security_code(card)


@transaction.atomic
def vaulted_card_shorten_expiry(*, card: VaultedCard, expires_at: datetime) -> None:
    """Move the card's (and its code's) deadline to `expires_at` if that is sooner; never later."""
    VaultedCard.objects.filter(pk=card.pk, expires_at__gt=expires_at).update(expires_at=expires_at)
    VaultedCard.objects.filter(pk=card.pk, security_code_expires_at__gt=expires_at).update(
        security_code_expires_at=expires_at
    )
    card.refresh_from_db(fields=["expires_at", "security_code_expires_at"])


@transaction.atomic
def vaulted_card_set_expiration(
    *, card: VaultedCard, expiration_month: int, expiration_year: int, expires_at: datetime
) -> None:
    """Record the card's new expiry date (the issuer renewed it) and keep it until `expires_at`."""
    if not 1 <= expiration_month <= 12:
        raise cards.CardDataError("Expiration month must be between 1 and 12.", code="invalid_month")
    card.expiration_month, card.expiration_year, card.expires_at = expiration_month, expiration_year, expires_at
    card.save(update_fields=["expiration_month", "expiration_year", "expires_at"])


@transaction.atomic
def vaulted_card_delete(*, card: VaultedCard) -> None:
    """Delete the card and both ciphertexts; references to it become null. Deleting twice is harmless."""
    VaultedCard.objects.filter(pk=card.pk).delete()


def vaulted_cards_delete(*, card_ids: Iterable[uuid.UUID]) -> None:
    """Delete these cards at once (owners purging in batches); ids already gone are ignored."""
    VaultedCard.objects.filter(pk__in=list(card_ids)).delete()


def _purge_expired(model: type[VaultedCard] | type[VaultedSecurityCode], *, now: datetime, batch_size: int) -> int:
    """Delete up to `batch_size` rows of `model` past `expires_at`, skipping rows a request holds; return how many."""
    with transaction.atomic():
        due = model.objects.filter(expires_at__lte=now).order_by("expires_at")
        ids = list(due.select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch_size])
        model.objects.filter(pk__in=ids).delete()
    return len(ids)


def vaulted_cards_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Purge job: delete up to `batch_size` cards past `expires_at`; return how many."""
    return _purge_expired(VaultedCard, now=now, batch_size=batch_size)


def vaulted_security_codes_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Purge job: delete up to `batch_size` security codes past their deadline; return how many."""
    with transaction.atomic():
        due = VaultedCard.objects.filter(security_code_expires_at__lte=now).order_by("security_code_expires_at")
        ids = list(due.select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch_size])
        VaultedCard.objects.filter(pk__in=ids).update(encrypted_security_code=None, security_code_expires_at=None)
    return len(ids)


@dataclass(frozen=True)
class RotationBatch:
    """One rotation batch: how many cards were re-sealed, which could not be opened, and where to resume."""

    rotated: int
    failed: list[uuid.UUID] = field(default_factory=list)
    last_id: uuid.UUID | None = None


def sealed_rows_rotate_batch(
    stale: QuerySet[M], *, batch_size: int, after: uuid.UUID | None, reseal: Callable[[M], None], fields: list[str]
) -> RotationBatch:
    """Re-seal with `reseal` up to `batch_size` rows of `stale` in id order after `after`, saving `fields`.

    Rows `reseal` cannot open (their key is no longer configured, or they were tampered with) are listed in
    `failed` and left as they are; rows locked by requests in flight are skipped for the next run."""
    with transaction.atomic():
        ordered = stale.order_by("pk")
        if after is not None:
            ordered = ordered.filter(pk__gt=after)
        batch = list(ordered.select_for_update(skip_locked=True)[:batch_size])
        rotated, failed = [], []
        for row in batch:
            try:
                reseal(row)
            except crypto.VaultError:
                failed.append(row.pk)
            else:
                rotated.append(row)
        stale.model._default_manager.bulk_update(rotated, fields)
    return RotationBatch(rotated=len(rotated), failed=failed, last_id=batch[-1].pk if batch else None)


def vaulted_cards_rotate_batch(*, batch_size: int, after: uuid.UUID | None = None) -> RotationBatch:
    """Re-seal under the current key up to `batch_size` cards sealed under another, in id order after `after`.

    Cards whose ciphertext cannot be opened (its key is no longer configured, or it was tampered with) are
    listed in `failed` and left as they are. Rows locked by another request are skipped for the next run.
    """
    return sealed_rows_rotate_batch(
        VaultedCard.objects.exclude(key_id=crypto.current_key_id()),
        batch_size=batch_size,
        after=after,
        reseal=_reseal,
        fields=["encrypted_number", "encrypted_security_code", "key_id"],
    )


def _reseal(card: VaultedCard) -> None:
    number = crypto.decrypt(card.encrypted_number, context=_context(card.id, "number"))
    code = (
        None
        if card.encrypted_security_code is None
        else crypto.decrypt(card.encrypted_security_code, context=_context(card.id, "security_code"))
    )
    _seal(card, number=number, security_code=code)


def vaulted_cards_count_stale() -> int:
    """How many cards are sealed under a key other than the current one."""
    return VaultedCard.objects.exclude(key_id=crypto.current_key_id()).count()


# --- Security codes typed for a card kept for later (`VaultedSecurityCode`) ----------------------------------------


def _typed_code_context(code_id: uuid.UUID) -> str:
    return f"vaulted-security-code:{code_id}"


def vaulted_security_code_store(*, card: VaultedCard, security_code: str, expires_at: datetime) -> VaultedSecurityCode:
    """Seal a code the buyer typed for `card` (a card kept for later) until `expires_at`, and at most
    `SECURITY_CODE_MAX_AGE`: a code never waits longer for its payment than a card's own code does.

    `security_code` must already have passed the length check for the card's scheme; anything else raises
    `CardDataError`.
    """
    cards.validate_security_code(security_code, card.scheme)
    code = VaultedSecurityCode(card=card, expires_at=min(expires_at, timezone.now() + SECURITY_CODE_MAX_AGE))
    code.encrypted_security_code = crypto.encrypt(security_code, context=_typed_code_context(code.id))
    code.key_id = crypto.current_key_id()
    code.save(force_insert=True)
    return code


@transaction.atomic
def vaulted_security_code_consume(*, code_id: uuid.UUID) -> str | None:
    """The clear code for the authorization it was typed for, deleted as it is read: under a row lock, so two racing
    authorizations cannot both see it. None when it has expired, was used, or went with its card."""
    fresh = VaultedSecurityCode.objects.select_for_update().filter(pk=code_id, expires_at__gt=timezone.now()).first()
    VaultedSecurityCode.objects.filter(pk=code_id).delete()
    if fresh is None:
        return None
    return crypto.decrypt(fresh.encrypted_security_code, context=_typed_code_context(fresh.id))


def vaulted_security_codes_delete(*, code_ids: Iterable[uuid.UUID]) -> None:
    """Delete these typed codes at once (their payment will not come); ids already gone are ignored."""
    VaultedSecurityCode.objects.filter(pk__in=list(code_ids)).delete()


def vaulted_typed_security_codes_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Purge job: delete up to `batch_size` typed codes past `expires_at`; return how many."""
    return _purge_expired(VaultedSecurityCode, now=now, batch_size=batch_size)


def vaulted_typed_security_codes_rotate_batch(*, batch_size: int, after: uuid.UUID | None = None) -> RotationBatch:
    """Re-seal under the current key up to `batch_size` typed codes sealed under another, in id order after `after`."""
    return sealed_rows_rotate_batch(
        VaultedSecurityCode.objects.exclude(key_id=crypto.current_key_id()),
        batch_size=batch_size,
        after=after,
        reseal=_reseal_typed_code,
        fields=["encrypted_security_code", "key_id"],
    )


def _reseal_typed_code(code: VaultedSecurityCode) -> None:
    context = _typed_code_context(code.id)
    code.encrypted_security_code = crypto.encrypt(
        crypto.decrypt(code.encrypted_security_code, context=context), context=context
    )
    code.key_id = crypto.current_key_id()


def vaulted_typed_security_codes_count_stale() -> int:
    """How many typed codes are sealed under a key other than the current one."""
    return VaultedSecurityCode.objects.exclude(key_id=crypto.current_key_id()).count()
