"""Writes of stored payment methods: the API, the admin and transactions (`store: true`) all come through here.

A stored method is a vaulted card (`payments.vault`) kept for one buyer, or for none (the merchant's, as upstream
allows): the number sealed under the rotating keys, never a security code. The card is kept until the method is
deleted (or its buyer is), and at the latest `RETENTION_AFTER_EXPIRY` after the end of its expiry month, when the
vault's purge deletes it and the method with it (docs/payment-methods.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from buyers.access import UNRESTRICTED, BuyerAccess
from buyers.models import Buyer
from buyers.selectors import buyer_named
from checkout.selectors import checkout_session_card
from paymentmethods.models import PaymentMethod
from paymentmethods.notifications import CREATED, DELETED, UPDATED, payment_method_notify
from payments.accounts.models import MerchantAccount
from payments.errors import Forbidden
from payments.partial import UNCHANGED, Unchanged, changed_fields
from payments.vault import crypto
from payments.vault.models import VaultedCard
from payments.vault.services import vaulted_card_reveal, vaulted_card_set_expiration, vaulted_card_store

# Long enough for the merchant to record a renewed card's new expiry date (PUT), short enough not to keep a
# dead card number for ever.
RETENTION_AFTER_EXPIRY = timedelta(days=90)


@dataclass(frozen=True)
class CardToStore:
    """A validated card to keep: its number and expiry (a security code is never stored)."""

    number: str
    expiration_month: int
    expiration_year: int

    def __repr__(self) -> str:  # never the number, in a log or a traceback
        return f"CardToStore(expiration={self.expiration_month:02d}/{self.expiration_year})"


def card_to_store_from_vault(card: VaultedCard) -> CardToStore:
    """The card another owner keeps in the vault (a checkout session's), to store as a method of its own; the
    original and its security code are left as they are."""
    details = vaulted_card_reveal(card=card)
    return CardToStore(details.number, details.expiration_month, details.expiration_year)


def card_retention_deadline(*, expiration_month: int, expiration_year: int) -> datetime:
    """When the vault deletes a stored card: `RETENTION_AFTER_EXPIRY` after the last day of its expiry month."""
    year, month = (expiration_year + 1, 1) if expiration_month == 12 else (expiration_year, expiration_month + 1)
    return datetime(year, month, 1, tzinfo=UTC) + RETENTION_AFTER_EXPIRY


def _existing(merchant_account: MerchantAccount, buyer: Buyer | None, fingerprint: str) -> PaymentMethod | None:
    """The method that already keeps this card for `buyer` (None: among the account's methods of no buyer)."""
    methods = PaymentMethod.objects.select_related("card", "buyer").filter(fingerprint=fingerprint)
    if buyer is None:
        return methods.filter(merchant_account=merchant_account, buyer__isnull=True).first()
    return methods.filter(buyer=buyer).first()


def payment_method_create(
    *,
    merchant_account: MerchantAccount,
    buyer_id: UUID | None = None,
    buyer_external_identifier: str | None = None,
    card: CardToStore | None = None,
    checkout_session_id: UUID | None = None,
    external_identifier: str | None = None,
    access: BuyerAccess = UNRESTRICTED,
) -> PaymentMethod:
    """`POST /payment-methods`: keep `card`, or the card a checkout session holds, for the buyer the body names (one
    `access` allows; a missing buyer is a 400 at the field naming it, a missing session a 404), or for no buyer when
    it names none. Only an unrestricted caller stores a method of no buyer: an embed token stores for its pinned
    buyer alone."""
    buyer = buyer_named(
        merchant_account=merchant_account,
        buyer_id=buyer_id,
        buyer_external_identifier=buyer_external_identifier,
        access=access,
    )
    if buyer is None and access.restricted:
        raise Forbidden("This token stores payment methods for the buyer it was issued for only.", pointer="/buyer_id")
    if checkout_session_id is not None:
        card = card_to_store_from_vault(
            checkout_session_card(merchant_account=merchant_account, session_id=checkout_session_id)
        )
    if card is None:
        raise ValueError("Pass either card or checkout_session_id.")
    return payment_method_store(
        merchant_account=merchant_account, buyer=buyer, card=card, external_identifier=external_identifier
    )


def payment_method_store(
    *,
    merchant_account: MerchantAccount,
    buyer: Buyer | None,
    card: CardToStore,
    external_identifier: str | None = None,
) -> PaymentMethod:
    """Keep `card` for `buyer` (None: for no buyer); the same card (by fingerprint) stored again for the same owner is
    the same method, its expiry date and external identifier brought up to date. Two concurrent stores of one card
    make one method (the unique constraints decide)."""
    fingerprint = crypto.fingerprint(card.number)
    existing = _existing(merchant_account, buyer, fingerprint)
    if existing is not None:
        return _restore(existing, card=card, external_identifier=external_identifier)
    try:
        with transaction.atomic():
            vaulted = vaulted_card_store(
                merchant_account=merchant_account,
                number=card.number,
                expiration_month=card.expiration_month,
                expiration_year=card.expiration_year,
                expires_at=card_retention_deadline(
                    expiration_month=card.expiration_month, expiration_year=card.expiration_year
                ),
            )
            method = PaymentMethod.objects.create(
                merchant_account=merchant_account,
                buyer=buyer,
                card=vaulted,
                fingerprint=fingerprint,
                external_identifier=external_identifier,
            )
            payment_method_notify(method, name=CREATED)
            return method
    except IntegrityError:
        existing = _existing(merchant_account, buyer, fingerprint)  # a concurrent store of the card committed first
        if existing is None:
            raise
        return _restore(existing, card=card, external_identifier=external_identifier)


@transaction.atomic
def _restore(method: PaymentMethod, *, card: CardToStore, external_identifier: str | None) -> PaymentMethod:
    """The card stored again: a newer expiry date or a new external identifier replaces the stored one."""
    changes: dict[str, Any] = {}
    if (card.expiration_month, card.expiration_year) != (method.card.expiration_month, method.card.expiration_year):
        changes["expiration"] = (card.expiration_month, card.expiration_year)
    if external_identifier is not None and external_identifier != method.external_identifier:
        changes["external_identifier"] = external_identifier
    return _apply(method, changes) if changes else method


def payment_method_update(
    *,
    method: PaymentMethod,
    expiration: tuple[int, int] | Unchanged = UNCHANGED,
    scheme_transaction_id: str | Unchanged | None = UNCHANGED,
    scheme_transaction_id_scheme: str | Unchanged | None = UNCHANGED,
    transaction_link_id: str | Unchanged | None = UNCHANGED,
) -> PaymentMethod:
    """Apply the given fields only: `expiration` as (month, year), the stored-credential references (null clears
    one; clearing `scheme_transaction_id` clears its scheme, setting it without a scheme takes the card's)."""
    changes: dict[str, Any] = changed_fields(
        expiration=expiration,
        scheme_transaction_id=scheme_transaction_id,
        scheme_transaction_id_scheme=scheme_transaction_id_scheme,
        transaction_link_id=transaction_link_id,
    )
    if "scheme_transaction_id" in changes:
        if changes["scheme_transaction_id"] is None:
            changes["scheme_transaction_id_scheme"] = None
        elif changes.get("scheme_transaction_id_scheme") is None and method.scheme_transaction_id_scheme is None:
            changes["scheme_transaction_id_scheme"] = method.card.scheme
    return _apply(method, changes)


@transaction.atomic
def _apply(method: PaymentMethod, changes: dict[str, Any]) -> PaymentMethod:
    expiration = changes.pop("expiration", None)
    if expiration is not None:
        month, year = expiration
        vaulted_card_set_expiration(
            card=method.card,
            expiration_month=month,
            expiration_year=year,
            expires_at=card_retention_deadline(expiration_month=month, expiration_year=year),
        )
    for name, value in changes.items():
        setattr(method, name, value)
    method.save(update_fields=[*changes, "updated_at"])
    payment_method_notify(method, name=UPDATED)
    return method


@transaction.atomic
def payment_method_delete(*, method: PaymentMethod) -> None:
    """Delete the method and its card data at once; payments it made keep their masked copy of the card."""
    payment_method_notify(method, name=DELETED)
    method.delete()  # paymentmethods.signals deletes the vaulted card with it


def payment_method_record_use(*, method: PaymentMethod, merchant_initiated: bool) -> None:
    """Count one payment made with the method, and the customer-initiated ones apart."""
    now = timezone.now()
    changes: dict[str, Any] = {"usage_count": F("usage_count") + 1, "last_used_at": now, "updated_at": now}
    if not merchant_initiated:
        changes.update(cit_usage_count=F("cit_usage_count") + 1, cit_last_used_at=now)
    PaymentMethod.objects.filter(pk=method.pk).update(**changes)


def payment_method_mark_replaced(*, method: PaymentMethod) -> None:
    """A processor reported that the issuer replaced the card: the merchant should ask the buyer for the new one."""
    PaymentMethod.objects.filter(pk=method.pk).update(has_replacement=True, updated_at=timezone.now())
