"""Reads of stored gift cards and balances, always scoped to one merchant account, and the lookups the
transactions app uses to find the card a client means."""

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypedDict
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.utils import timezone

from buyers.access import UNRESTRICTED, BuyerAccess
from buyers.selectors import buyer_owned
from giftcards.errors import GiftCardError, InvalidGiftCard
from giftcards.hashing import display_digits
from giftcards.models import GiftCard, IssuedGiftCard, LedgerEntry
from giftcards.services import issued_card_check, issued_card_require_usable
from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import DomainError, NotFound

SORT_FIELDS = {
    "last_used_at": "last_used_at",
    "usage_count": "usage_count",
    # Gift cards are only ever used by the buyer at checkout, so every use is customer initiated.
    "cit_last_used_at": "last_used_at",
    "cit_usage_count": "usage_count",
}


def gift_card_list(*, merchant_account: MerchantAccount) -> QuerySet[GiftCard]:
    """The account's stored gift cards with everything their representation needs, in one query."""
    return account_rows(GiftCard, merchant_account).select_related("issued_card__service", "buyer")


def gift_card_get(*, merchant_account: MerchantAccount, id: UUID | str, access: BuyerAccess = UNRESTRICTED) -> GiftCard:
    """One stored gift card; another account's card, or one `access` may not touch (another buyer's), is not found,
    like a missing one. A caller confined to no buyer names none (403)."""
    access.require_pinned_buyer(what="stored gift cards", pointer="/gift_card_id", location="path")
    try:
        return access.confine(gift_card_list(merchant_account=merchant_account)).get(id=id)
    except (GiftCard.DoesNotExist, ValueError, ValidationError) as exc:
        raise NotFound("The gift card could not be found.") from exc


def gift_card_list_for_buyer(
    *,
    merchant_account: MerchantAccount,
    buyer_id: UUID | None = None,
    buyer_external_identifier: str | None = None,
    sort_by: str | None = None,
    order_by: str = "desc",
    access: BuyerAccess = UNRESTRICTED,
) -> QuerySet[GiftCard]:
    """One buyer's stored gift cards, newest first unless sorted by use; an unknown buyer has none, and so has one
    `access` may not touch (a buyer it does not pin: 403 when named by the claim the token pins)."""
    access.require_named(buyer_id=buyer_id, buyer_external_identifier=buyer_external_identifier, creating=False)
    return buyer_owned(
        access.confine(gift_card_list(merchant_account=merchant_account)),
        buyer_id=buyer_id,
        buyer_external_identifier=buyer_external_identifier,
        sort_field=SORT_FIELDS[sort_by] if sort_by is not None else None,
        order_by=order_by,
    )


@dataclass(frozen=True)
class GiftCardBalance:
    """One `GiftCardSummary`: a card's balance, or the reason it has none (`balance_error_code`)."""

    merchant_account_id: str
    bin: str
    sub_bin: str
    last4: str
    id: UUID | None = None
    currency: str | None = None
    expiration_date: datetime | None = None
    balance: int | None = None
    balance_error_code: str | None = None
    usage_count: int = 0
    last_used_at: datetime | None = None


class BalanceItem(TypedDict, total=False):
    """One validated item of a balance check: `id` of a stored card, or `number` and `pin` to check."""

    id: UUID
    number: str
    pin: str


def gift_card_balance_of_stored(gift_card: GiftCard) -> GiftCardBalance:
    """The summary of a stored card (no PIN needed: it was checked when the card was stored)."""
    return _balance(
        gift_card.issued_card, id=gift_card.id, usage_count=gift_card.usage_count, last_used_at=gift_card.last_used_at
    )


def gift_card_balances(
    *, merchant_account: MerchantAccount, items: list[BalanceItem], endpoint: str, access: BuyerAccess = UNRESTRICTED
) -> list[GiftCardBalance]:
    """One summary per item, in order: `{"id"}` items name stored cards, `{"number", "pin"}` items are checked.

    Every stored id is resolved before any number is checked, so a request naming a missing card (400)
    counts no PIN failures. An unknown number and a wrong PIN give the same `invalid_gift_card` item. A stored card
    `access` may not touch (another buyer's) is missing, like one that does not exist.
    """
    stored = _stored_by_id(merchant_account, items, access)
    return [
        gift_card_balance_of_stored(stored[item["id"]])
        if "id" in item
        else _balance_of_check(merchant_account, item["number"], item["pin"], endpoint)
        for item in items
    ]


def gift_card_summaries_for_buyer(
    *,
    merchant_account: MerchantAccount,
    buyer_id: UUID | None = None,
    buyer_external_identifier: str | None = None,
    sort_by: str | None = None,
    order_by: str = "desc",
    access: BuyerAccess = UNRESTRICTED,
) -> list[GiftCardBalance]:
    """A buyer's stored cards as balance summaries (see `gift_card_list_for_buyer` for the filters)."""
    gift_cards = gift_card_list_for_buyer(
        merchant_account=merchant_account,
        buyer_id=buyer_id,
        buyer_external_identifier=buyer_external_identifier,
        sort_by=sort_by,
        order_by=order_by,
        access=access,
    )
    return [gift_card_balance_of_stored(gift_card) for gift_card in gift_cards]


def _stored_by_id(
    merchant_account: MerchantAccount, items: list[BalanceItem], access: BuyerAccess
) -> dict[UUID, GiftCard]:
    ids = [item["id"] for item in items if "id" in item]
    if not ids:
        return {}
    first = next(index for index, item in enumerate(items) if "id" in item)
    access.require_pinned_buyer(what="stored gift cards", pointer=f"/items/{first}/id")
    stored = access.confine(gift_card_list(merchant_account=merchant_account))
    found = {card.id: card for card in stored.filter(id__in=ids)}
    for index, item in enumerate(items):
        if "id" in item and item["id"] not in found:
            raise DomainError("No stored gift card with this id exists.", pointer=f"/items/{index}/id")
    return found


def _balance_of_check(merchant_account: MerchantAccount, number: str, pin: str, endpoint: str) -> GiftCardBalance:
    try:
        card = issued_card_check(merchant_account=merchant_account, number=number, pin=pin, endpoint=endpoint)
    except InvalidGiftCard as exc:
        return GiftCardBalance(
            merchant_account_id=merchant_account.pk, balance_error_code=exc.error_code, **display_digits(number)
        )
    return _balance(card)


def _balance(
    card: IssuedGiftCard, *, id: UUID | None = None, usage_count: int = 0, last_used_at: datetime | None = None
) -> GiftCardBalance:
    error_code: str | None
    try:
        issued_card_require_usable(card)
    except GiftCardError as exc:
        error_code = exc.error_code
    else:
        error_code = None
    return GiftCardBalance(
        merchant_account_id=card.service.merchant_account_id,
        bin=card.bin,
        sub_bin=card.sub_bin,
        last4=card.last4,
        currency=card.currency,
        expiration_date=card.expires_at,
        balance=card.balance if error_code is None else None,
        balance_error_code=error_code,
        id=id,
        usage_count=usage_count,
        last_used_at=last_used_at,
    )


def gift_card_balance_after(*, entry_id: UUID | str) -> GiftCardBalance | None:
    """The summary of the card a ledger entry moved money on, with the balance that entry left (what a balance
    notification shows: the movement's outcome, not whatever later movements made of it); None if not found."""
    entry = LedgerEntry.objects.select_related("card__service").filter(pk=entry_id).first()
    if entry is None:
        return None
    summary = _balance(entry.card, last_used_at=entry.created_at)
    return replace(summary, balance=entry.balance_after) if summary.balance is not None else summary


# --- for the transactions app ------------------------------------------------------------------------


def issued_card_for_payment(
    *,
    merchant_account: MerchantAccount,
    number: str | None = None,
    pin: str | None = None,
    gift_card_id: UUID | None = None,
    pointer: str = "/",
    access: BuyerAccess = UNRESTRICTED,
) -> IssuedGiftCard:
    """The issued card a payment names, by `number` + `pin` or by a stored `gift_card_id`.

    An unknown number and a wrong PIN raise the same `InvalidGiftCard` (400, `invalid_gift_card`); an id
    that is not one of the account's stored cards is a 400 too. `pointer` places the error in the
    caller's body (e.g. "/gift_cards/1"). Says nothing of the card's state: `issued_card_redeem` refuses
    inactive and expired cards. A stored card `access` may not touch (another buyer's) is missing, like one that does
    not exist; a caller confined to no buyer may name no stored card (403).
    """
    if gift_card_id is not None and (number is None or pin is None):
        id_pointer = f"{pointer.rstrip('/')}/id"
        access.require_pinned_buyer(what="stored gift cards", pointer=id_pointer)
        try:
            return gift_card_get(merchant_account=merchant_account, id=gift_card_id, access=access).issued_card
        except NotFound as exc:
            raise DomainError("No stored gift card with this id exists.", pointer=id_pointer) from exc
    if gift_card_id is not None or number is None or pin is None:
        raise ValueError("Pass either gift_card_id, or number and pin.")
    try:
        return issued_card_check(
            merchant_account=merchant_account, number=number, pin=pin, endpoint="POST /transactions"
        )
    except InvalidGiftCard:
        raise InvalidGiftCard(pointer=pointer) from None


class TransactionGiftCard(TypedDict):
    """The upstream `TransactionGiftCard`: how a redemption shows the card it used."""

    type: str
    id: str | None
    bin: str
    sub_bin: str
    last4: str


def issued_card_display(*, card: IssuedGiftCard, gift_card_id: UUID | None = None) -> TransactionGiftCard:
    """The `gift_card` of a transaction's `gift_card_redemptions` item; `id` is the stored card used, if any."""
    return {
        "type": "gift-card",
        "id": str(gift_card_id) if gift_card_id is not None else None,
        "bin": card.bin,
        "sub_bin": card.sub_bin,
        "last4": card.last4,
    }


def gift_cards_can_pay(*, merchant_account: MerchantAccount, currency: str | None = None) -> bool:
    """Whether the account's gift card program has a card that could pay now (active, unexpired, with money left),
    in `currency` when given: a checkout offers gift cards only then. One query."""
    usable = IssuedGiftCard.objects.filter(
        service__merchant_account=merchant_account, status=IssuedGiftCard.Status.ACTIVE, balance__gt=0
    ).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
    return (usable.filter(currency=currency) if currency else usable).exists()
