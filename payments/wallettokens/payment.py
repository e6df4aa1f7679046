"""What a wallet token holds once verified and decrypted, in one shape for every wallet."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Wallet(StrEnum):
    APPLE_PAY = "applepay"
    GOOGLE_PAY = "googlepay"


class AuthMethod(StrEnum):
    """How the card was authenticated: a bare card number (3-D Secure still to do) or a device token with its
    cryptogram."""

    PAN_ONLY = "PAN_ONLY"
    CRYPTOGRAM_3DS = "CRYPTOGRAM_3DS"


@dataclass(frozen=True)
class WalletPayment:
    """A decrypted wallet payment. `number` is card data (vault rules); `cryptogram` is never stored.

    `transaction_id` is the wallet's own id of this token (Apple's transactionId, Google's messageId): the replay
    guard keys on it. `amount` (minor units) and `currency` (ISO 4217 alpha) are set where the format carries them
    (Apple Pay).
    """

    wallet: Wallet
    transaction_id: str
    number: str = field(repr=False)
    expiration_month: int
    expiration_year: int
    auth_method: AuthMethod
    cryptogram: str | None = field(default=None, repr=False)
    eci: str | None = None
    amount: int | None = None
    currency: str | None = None
    cardholder_name: str | None = field(default=None, repr=False)
