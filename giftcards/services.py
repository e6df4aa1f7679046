"""Writes of the gift card program and of stored gift cards: the API, the admin, the issuing command and
the transactions app all come through here.

Two things share the words "gift card", and the names keep them apart, after the model each function
writes:
- `issued_card_*`: the issuer's side, the program's cards (`IssuedGiftCard`): issuing, checking a number
  and PIN, deactivating, and the money on them (redeem, refund, the ledger).
- `gift_card_*`: a merchant's record of a card a buyer stored (`GiftCard`, the API's gift card), which
  points at an issued card and holds no money.

Money moves only in `issued_card_redeem` and `issued_card_refund`, each holding the card's row lock, so
concurrent redemptions never overdraw a card; the ledger's constraints refuse a negative balance even if
a caller bypassed these functions.

A failed number+PIN check is recognised in one place, `_record_check_failure`, which counts it against
the per-card PIN-failure limit (`giftcards.lockout`) and locks the card once the budget is used up.
"""

import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Sum
from django.utils import timezone

from buyers.access import UNRESTRICTED, BuyerAccess
from buyers.models import Buyer
from buyers.selectors import buyer_named
from giftcards import lockout
from giftcards.errors import (
    GiftCardExpired,
    GiftCardInactive,
    IncorrectCurrency,
    InsufficientFunds,
    InvalidAmount,
    InvalidGiftCard,
)
from giftcards.hashing import display_digits, number_hash, pin_hash
from giftcards.models import GiftCard, GiftCardService, IssuedGiftCard, LedgerEntry
from giftcards.providers import provider_for
from payments.accounts.models import MerchantAccount
from payments.errors import Conflict, DomainError, DuplicateRecord
from payments.outbox import outbox_publish
from payments.validators import MAX_AMOUNT, validate_payment_currency
from payments.vault.cards import luhn_valid

# Issued numbers: the program's 6-digit BIN, 12 random digits and a Luhn check digit (19 digits). The API
# shows the first 9 and the last 4, so the 6 hidden digits plus an 8-digit PIN are what a guesser faces.
ISSUER_BIN = "603571"
RANDOM_DIGITS = 12
PIN_DIGITS = 8
MIN_NUMBER_LENGTH = 16
MAX_NUMBER_LENGTH = 19
MAX_PIN_LENGTH = 64
ISSUE_REFERENCE = "issue"
# The reference of the credit an activation loads onto a pre-printed card.
ACTIVATION_REFERENCE = "activation"
# Rows per INSERT when issuing in bulk.
BULK_SIZE = 1000

DEFAULT_CHECK_ENDPOINT = "gift card check"


@dataclass(frozen=True)
class IssuedCardSecret:
    """A card just issued, with its number and PIN: the only moment either exists in clear."""

    card: IssuedGiftCard
    number: str
    pin: str


# --- the program: issuing and deactivating cards -------------------------------------------------------


def gift_card_service_get_or_create(*, merchant_account: MerchantAccount) -> GiftCardService:
    """The account's gift card service, created as the built-in program on first use."""
    service, _ = GiftCardService.objects.get_or_create(merchant_account=merchant_account)
    return service


MAX_THEME_LENGTH = 200


@transaction.atomic
def gift_card_service_set_themes(*, merchant_account: MerchantAccount, themes: list[str]) -> GiftCardService:
    """Set the theme codes the account's issuances accept (in the order given, each once); an empty list accepts any
    theme. A code is 1 to 200 characters, as upstream's `theme`."""
    for index, theme in enumerate(themes):
        if not isinstance(theme, str) or not 1 <= len(theme) <= MAX_THEME_LENGTH or theme != theme.strip():
            raise DomainError(
                f"A theme is 1 to {MAX_THEME_LENGTH} characters without surrounding spaces.", pointer=f"/themes/{index}"
            )
    service = gift_card_service_get_or_create(merchant_account=merchant_account)
    service.themes = list(dict.fromkeys(themes))
    service.save(update_fields=["themes", "updated_at"])
    return service


@transaction.atomic
def issued_card_create(
    *,
    merchant_account: MerchantAccount,
    amount: int,
    currency: str,
    expires_at: datetime | None = None,
    number: str | None = None,
    pin: str | None = None,
) -> IssuedCardSecret:
    """Issue one card holding `amount` (random number and PIN unless given, e.g. when importing cards)."""
    _require_issue_terms(amount=amount, currency=currency, expires_at=expires_at)
    number = number if number is not None else _new_number()
    pin = pin if pin is not None else _new_pin()
    _require_number(number)
    _require_pin(pin)
    service = gift_card_service_get_or_create(merchant_account=merchant_account)
    try:
        with transaction.atomic():
            return _issue(service, [(number, pin)], amount=amount, currency=currency, expires_at=expires_at)[0]
    except IntegrityError as exc:
        raise DuplicateRecord("A gift card with this number already exists.", pointer="/number") from exc


@transaction.atomic
def issued_cards_create_batch(
    *,
    merchant_account: MerchantAccount,
    count: int,
    amount: int,
    currency: str,
    expires_at: datetime | None = None,
    status: str = IssuedGiftCard.Status.ACTIVE,
) -> list[IssuedCardSecret]:
    """Issue `count` cards with random numbers and PINs, all or none, with bulk inserts; pre-printed cards are
    issued `inactive` and wait for `issued_card_activate`."""
    if not isinstance(count, int) or count < 1:
        raise DomainError("Count must be a positive whole number.", pointer="/count")
    _require_issue_terms(amount=amount, currency=currency, expires_at=expires_at)
    service = gift_card_service_get_or_create(merchant_account=merchant_account)
    pairs = [(number, _new_pin()) for number in _unused_numbers(service, count)]
    return _issue(service, pairs, amount=amount, currency=currency, expires_at=expires_at, status=status)


@transaction.atomic
def issued_card_deactivate(*, card: IssuedGiftCard) -> IssuedGiftCard:
    """Make the card unusable for checks and redemptions; its balance and ledger stay as they are."""
    card = _locked(card)
    if card.status != IssuedGiftCard.Status.INACTIVE or card.awaiting_activation:
        card.status = IssuedGiftCard.Status.INACTIVE
        # Staff deactivated it: the activation API must never make it active again.
        card.awaiting_activation = False
        card.save(update_fields=["status", "awaiting_activation", "updated_at"])
    return card


def _issue(
    service: GiftCardService,
    pairs: list[tuple[str, str]],
    *,
    amount: int,
    currency: str,
    expires_at: datetime | None,
    status: str = IssuedGiftCard.Status.ACTIVE,
) -> list[IssuedCardSecret]:
    cards = [
        IssuedGiftCard(
            id=uuid.uuid4(),
            service=service,
            number_hash=number_hash(number),
            pin_hash=pin_hash(number, pin),
            currency=currency,
            balance=amount,
            expires_at=expires_at,
            status=status,
            awaiting_activation=status == IssuedGiftCard.Status.INACTIVE,
            **display_digits(number),
        )
        for number, pin in pairs
    ]
    IssuedGiftCard.objects.bulk_create(cards, batch_size=BULK_SIZE)
    issue = {"kind": LedgerEntry.Kind.ISSUE, "amount": amount, "balance_after": amount, "reference": ISSUE_REFERENCE}
    entries = [LedgerEntry(card=card, **issue) for card in cards]
    LedgerEntry.objects.bulk_create(entries, batch_size=BULK_SIZE)
    return [IssuedCardSecret(card, number, pin) for card, (number, pin) in zip(cards, pairs, strict=True)]


def _new_number() -> str:
    body = ISSUER_BIN + f"{secrets.randbelow(10**RANDOM_DIGITS):0{RANDOM_DIGITS}d}"
    # A Luhn-valid number is also one the log masking filter recognises and hides.
    return next(body + digit for digit in "0123456789" if luhn_valid(body + digit))


def _new_pin() -> str:
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


def _unused_numbers(service: GiftCardService, count: int) -> list[str]:
    """`count` new numbers, distinct from each other and from the service's cards (one query per round)."""
    numbers: dict[str, str] = {}
    while len(numbers) < count:
        fresh = {number_hash(number): number for number in (_new_number() for _ in range(count - len(numbers)))}
        fresh = {key: number for key, number in fresh.items() if key not in numbers}
        taken = set(
            IssuedGiftCard.objects.filter(service=service, number_hash__in=list(fresh)).values_list(
                "number_hash", flat=True
            )
        )
        numbers.update((key, number) for key, number in fresh.items() if key not in taken)
    return list(numbers.values())


def _require_issue_terms(*, amount: int, currency: str, expires_at: datetime | None) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_AMOUNT:
        raise InvalidAmount(f"The amount must be a whole number from 1 to {MAX_AMOUNT}.", pointer="/amount")
    try:
        validate_payment_currency(currency)
    except ValidationError as exc:
        raise DomainError(
            f"The currency must be an ISO 4217 currency money can be paid in: {exc.messages[0]}", pointer="/currency"
        ) from exc
    if expires_at is not None and expires_at <= timezone.now():
        raise DomainError("The expiry must be in the future.", pointer="/expires_at")


def _require_number(number: str) -> None:
    if not (
        isinstance(number, str)
        and number.isascii()
        and number.isdigit()
        and MIN_NUMBER_LENGTH <= len(number) <= MAX_NUMBER_LENGTH
    ):
        raise DomainError(f"The number must be {MIN_NUMBER_LENGTH} to {MAX_NUMBER_LENGTH} digits.", pointer="/number")


def _require_pin(pin: str) -> None:
    if not isinstance(pin, str) or not 1 <= len(pin) <= MAX_PIN_LENGTH:
        raise DomainError(f"The PIN must be 1 to {MAX_PIN_LENGTH} characters.", pointer="/pin")


# --- checking a number and PIN -------------------------------------------------------------------------


def issued_card_check(
    *, merchant_account: MerchantAccount, number: str, pin: str, endpoint: str = DEFAULT_CHECK_ENDPOINT
) -> IssuedGiftCard:
    """The account's card with this number and PIN; an unknown number, a wrong PIN and a locked-out number
    all raise the same `InvalidGiftCard`.

    Says nothing about the card's state: callers check expiry and status only after this has matched.
    `endpoint` names the caller in the PIN-failure record (e.g. "POST /gift-cards/balances").
    """
    service = GiftCardService.objects.filter(merchant_account=merchant_account).first()
    # The check runs even when the card is locked, so a locked card costs what any other check costs.
    card = provider_for(service).check(service=service, number=number, pin=pin)
    if card is None:
        _record_check_failure(
            service, number_hash(number), merchant_account=merchant_account, last4=number[-4:], endpoint=endpoint
        )
    if card is None or card.is_locked():
        raise InvalidGiftCard()
    return card


def _record_check_failure(
    service: GiftCardService | None, subject: str, *, merchant_account: MerchantAccount, last4: str, endpoint: str
) -> None:
    """Count one failed check (unknown number or wrong PIN alike) against the number behind `subject`, and
    lock the card once the failures use up their budget.

    The lock is one UPDATE by number hash, which matches no row for an unknown number: both failures do the
    same work. Callers check outside any transaction a failure would roll back, so the lock stays.
    """
    locked_until = lockout.record_pin_failure(
        subject, merchant_account_id=merchant_account.pk, last4=last4, endpoint=endpoint
    )
    if locked_until is not None:
        IssuedGiftCard.objects.filter(service=service, number_hash=subject).update(locked_until=locked_until)


def issued_card_require_usable(card: IssuedGiftCard) -> None:
    """Refuse an inactive or expired card, with its own error; only ever said after number and PIN matched."""
    if card.status != IssuedGiftCard.Status.ACTIVE:
        raise GiftCardInactive()
    if card.is_expired():
        raise GiftCardExpired()


# --- moving money -------------------------------------------------------------------------------------


@transaction.atomic
def issued_card_redeem(
    *, card: IssuedGiftCard, amount: int, reference: str, currency: str | None = None
) -> LedgerEntry:
    """Debit `amount` minor units under `reference` (e.g. a transaction id); the balance never goes below zero.

    Locks the card row for the rest of the caller's transaction. Raises `InsufficientFunds` when `amount`
    exceeds the balance, `GiftCardInactive` / `GiftCardExpired` for an unusable card, `InvalidAmount` for
    an amount below 1, and `IncorrectCurrency` when `currency` is given and is not the card's. All are
    400 `GiftCardError`s whose `error_code` is the upstream `GiftCardErrorCode`. Stored gift cards of
    this card count the use (`usage_count`, `last_used_at`).
    """
    _require_movement(amount=amount, reference=reference)
    card = _locked(card)
    issued_card_require_usable(card)
    if currency is not None and currency != card.currency:
        raise IncorrectCurrency()
    if amount > card.balance:
        raise InsufficientFunds()
    entry = provider_for(card.service).redeem(card=card, amount=amount, reference=reference)
    GiftCard.objects.filter(issued_card=card).update(usage_count=F("usage_count") + 1, last_used_at=entry.created_at)
    _notify_balance(card, entry, "gift-card.redeemed")
    return entry


@transaction.atomic
def issued_card_refund(*, card: IssuedGiftCard, amount: int, reference: str) -> LedgerEntry:
    """Credit `amount` back under `reference`: never more, in total, than was redeemed under that reference.

    Works on inactive and expired cards too, since it returns money the card already held. Raises
    `InvalidAmount` (400) for an amount below 1 or above what is left to refund under `reference`.
    """
    _require_movement(amount=amount, reference=reference)
    card = _locked(card)
    if amount > _refundable(card, reference):
        raise InvalidAmount("The refund is larger than what is left to refund under this reference.")
    entry = provider_for(card.service).refund(card=card, amount=amount, reference=reference)
    _notify_balance(card, entry, "gift-card.refunded")
    return entry


# The outbox target type of a balance change: rendered as a `GiftCardSummary` (giftcards.api.targets).
BALANCE_TARGET = "gift-card-balance"


def _notify_balance(card: IssuedGiftCard, entry: LedgerEntry, name: str) -> None:
    """Tell the merchant's webhook receivers the card's balance changed, in this same transaction."""
    outbox_publish(
        merchant_account_id=card.service.merchant_account_id,
        name=name,
        target_type=BALANCE_TARGET,
        target_id=str(entry.pk),
    )


def _refundable(card: IssuedGiftCard, reference: str) -> int:
    totals = LedgerEntry.objects.filter(card=card, reference=reference).aggregate(
        redeemed=Sum("amount", filter=Q(kind=LedgerEntry.Kind.REDEMPTION)),
        refunded=Sum("amount", filter=Q(kind=LedgerEntry.Kind.REFUND)),
    )
    return -(totals["redeemed"] or 0) - (totals["refunded"] or 0)


def _locked(card: IssuedGiftCard) -> IssuedGiftCard:
    """The card re-read under a row lock (only the card's row: other cards of the service stay free)."""
    return IssuedGiftCard.objects.select_for_update(of=("self",)).select_related("service").get(pk=card.pk)


_PROGRAM_REFERENCES = {ISSUE_REFERENCE, ACTIVATION_REFERENCE}


def _require_movement(*, amount: int, reference: str) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
        raise InvalidAmount("The amount must be a whole number of at least 1.")
    if not isinstance(reference, str) or not reference or len(reference) > 255 or reference in _PROGRAM_REFERENCES:
        raise ValueError("A reference of 1 to 255 characters naming the redemption is required.")


# --- activating pre-printed cards -------------------------------------------------------------------


@dataclass(frozen=True)
class Activation:
    """A card just activated, and the stored gift card made for it when the request asked to store it."""

    card: IssuedGiftCard
    stored: GiftCard | None


def issued_card_activate(
    *,
    merchant_account: MerchantAccount,
    number: str,
    pin: str | None = None,
    amount: int | None = None,
    currency: str | None = None,
    store: bool = False,
    buyer_id: uuid.UUID | None = None,
    buyer_external_identifier: str | None = None,
    endpoint: str = DEFAULT_CHECK_ENDPOINT,
    access: BuyerAccess = UNRESTRICTED,
) -> Activation:
    """Make a pre-printed card active, crediting `amount` in its own `currency` when given, and store it (for the
    named buyer, if any) when `store`; all or nothing. The number and PIN are checked as every check is (one answer
    for both, the PIN-failure limit), and before the check nothing about the card is said."""
    _require_activation_terms(
        pin=pin, amount=amount, currency=currency, store=store, buyer_named=(buyer_id, buyer_external_identifier)
    )
    assert pin is not None  # noqa: S101 - required just above
    buyer = buyer_named(
        merchant_account=merchant_account,
        buyer_id=buyer_id,
        buyer_external_identifier=buyer_external_identifier,
        access=access,
    )
    # Outside the transaction below: a failed check is counted even though the request fails.
    card = issued_card_check(merchant_account=merchant_account, number=number, pin=pin, endpoint=endpoint)
    with transaction.atomic():
        card = _activate(card, amount=amount or 0, currency=currency)
        stored = _stored_get_or_create(merchant_account=merchant_account, buyer=buyer, card=card) if store else None
    return Activation(card=card, stored=stored)


def _require_activation_terms(
    *, pin: str | None, amount: int | None, currency: str | None, store: bool, buyer_named: tuple[object, object]
) -> None:
    if pin is None:
        raise DomainError("The program checks the card's PIN on activation: send `pin`.", pointer="/pin")
    if (amount is None) != (currency is None):
        missing = "/currency" if currency is None else "/amount"
        raise DomainError("Give amount and currency together, or neither.", pointer=missing)
    if not store and any(value is not None for value in buyer_named):
        pointer = "/buyer_id" if buyer_named[0] is not None else "/buyer_external_identifier"
        raise DomainError("A buyer is named only when the activated card is stored (`store: true`).", pointer=pointer)


def _activate(card: IssuedGiftCard, *, amount: int, currency: str | None) -> IssuedGiftCard:
    card = _locked(card)
    if card.status == IssuedGiftCard.Status.ACTIVE:
        raise Conflict("The gift card is already active.", pointer="/number")
    if not card.awaiting_activation:
        # Deactivated by staff (lost, stolen, refunded): only staff may decide about it again.
        raise GiftCardInactive("The gift card was deactivated and cannot be activated.", pointer="/number")
    if card.is_expired():
        raise GiftCardExpired()
    if currency is not None and currency != card.currency:
        raise IncorrectCurrency(f"The gift card holds {card.currency}.", pointer="/currency")
    if card.balance + amount > MAX_AMOUNT:
        raise InvalidAmount(f"A card holds at most {MAX_AMOUNT} minor units.", pointer="/amount")
    card.status, card.awaiting_activation = IssuedGiftCard.Status.ACTIVE, False
    if amount:
        card.balance += amount
        LedgerEntry.objects.create(
            card=card,
            kind=LedgerEntry.Kind.ISSUE,
            amount=amount,
            balance_after=card.balance,
            reference=ACTIVATION_REFERENCE,
        )
    card.save(update_fields=["status", "awaiting_activation", "balance", "updated_at"])
    return card


# --- stored gift cards ----------------------------------------------------------------------------------


def gift_card_store(
    *,
    merchant_account: MerchantAccount,
    number: str,
    pin: str,
    buyer_id: uuid.UUID | None = None,
    buyer_external_identifier: str | None = None,
    endpoint: str = DEFAULT_CHECK_ENDPOINT,
    access: BuyerAccess = UNRESTRICTED,
) -> GiftCard:
    """Store the card whose number and PIN match, for the buyer if one is named (one `access` allows, checked before
    the PIN); storing it again returns the first record. Unknown number and wrong PIN are the same
    `InvalidGiftCard`; an expired or inactive card is refused only after both matched."""
    if buyer_id is not None and buyer_external_identifier is not None:
        raise DomainError(
            "Give either buyer_id or buyer_external_identifier, not both.", pointer="/buyer_external_identifier"
        )
    buyer = buyer_named(
        merchant_account=merchant_account,
        buyer_id=buyer_id,
        buyer_external_identifier=buyer_external_identifier,
        access=access,
    )
    card = issued_card_check(merchant_account=merchant_account, number=number, pin=pin, endpoint=endpoint)
    issued_card_require_usable(card)
    return _stored_get_or_create(merchant_account=merchant_account, buyer=buyer, card=card)


@transaction.atomic
def gift_card_delete(*, gift_card: GiftCard) -> None:
    """Forget the stored reference; the issued card and its money are untouched."""
    gift_card.delete()


def _stored_get_or_create(*, merchant_account: MerchantAccount, buyer: Buyer | None, card: IssuedGiftCard) -> GiftCard:
    lookup = {"merchant_account": merchant_account, "buyer": buyer, "issued_card": card}
    stored = GiftCard.objects.filter(**lookup).first()
    if stored is None:
        try:
            with transaction.atomic():
                stored = GiftCard.objects.create(**lookup)
        except IntegrityError:
            # A concurrent request stored the same card first: the unique constraint decided, use its row.
            stored = GiftCard.objects.get(**lookup)
    # The caller renders these; reusing the loaded objects saves a query each.
    stored.issued_card, stored.buyer = card, buyer
    return stored
