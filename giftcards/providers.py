"""The provider interface behind each gift card service, and the built-in provider.

`giftcards.services` owns the rules every provider shares (locking the card row, card state, amounts,
the PIN-failure hooks) and calls a provider only for what the issuer itself decides: whether a number
and PIN match a card, and how money moves on it. An external gift card service is added by writing
another `GiftCardProvider` and registering it in `PROVIDERS`; the API layer does not change.
"""

from abc import ABC, abstractmethod

from giftcards.hashing import DECOY_PIN_HASH, number_hash, pin_matches
from giftcards.models import BUILTIN_PROVIDER, GiftCardService, IssuedGiftCard, LedgerEntry


class GiftCardProvider(ABC):
    """Check, redeem and refund against one kind of gift card service."""

    @abstractmethod
    def check(self, *, service: GiftCardService | None, number: str, pin: str) -> IssuedGiftCard | None:
        """The card with this number and PIN, or None; an unknown number and a wrong PIN are indistinguishable."""

    @abstractmethod
    def redeem(self, *, card: IssuedGiftCard, amount: int, reference: str) -> LedgerEntry:
        """Debit `amount` from `card`, which the caller has locked and checked."""

    @abstractmethod
    def refund(self, *, card: IssuedGiftCard, amount: int, reference: str) -> LedgerEntry:
        """Credit `amount` back to `card`, which the caller has locked and checked."""


class BuiltinGiftCardProvider(GiftCardProvider):
    """The program run by this server: cards and their ledger live in its own database."""

    def check(self, *, service: GiftCardService | None, number: str, pin: str) -> IssuedGiftCard | None:
        card = None
        if service is not None:
            card = (
                IssuedGiftCard.objects.select_related("service")
                .filter(service=service, number_hash=number_hash(number))
                .first()
            )
        # The PIN comparison runs whether or not the number matched, so both failures cost the same.
        matched = pin_matches(number, pin, card.pin_hash if card is not None else DECOY_PIN_HASH)
        return card if card is not None and matched else None

    def redeem(self, *, card: IssuedGiftCard, amount: int, reference: str) -> LedgerEntry:
        return ledger_append(card=card, kind=LedgerEntry.Kind.REDEMPTION, amount=-amount, reference=reference)

    def refund(self, *, card: IssuedGiftCard, amount: int, reference: str) -> LedgerEntry:
        return ledger_append(card=card, kind=LedgerEntry.Kind.REFUND, amount=amount, reference=reference)


def ledger_append(*, card: IssuedGiftCard, kind: str, amount: int, reference: str) -> LedgerEntry:
    """Move `amount` (signed) on a card the caller has locked, and record it; constraints refuse a negative balance."""
    card.balance += amount
    card.save(update_fields=["balance", "updated_at"])
    return LedgerEntry.objects.create(
        card=card, kind=kind, amount=amount, balance_after=card.balance, reference=reference
    )


PROVIDERS: dict[str, GiftCardProvider] = {BUILTIN_PROVIDER: BuiltinGiftCardProvider()}


def provider_for(service: GiftCardService | None) -> GiftCardProvider:
    """The provider of `service`; an account without a service is answered by the built-in one (no cards)."""
    return PROVIDERS[service.provider if service is not None else BUILTIN_PROVIDER]
