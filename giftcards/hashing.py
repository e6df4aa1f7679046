"""Keyed hashes of gift card numbers and PINs, the only form in which either is kept.

The number hash finds a card; the PIN hash is bound to the number, so two cards with the same PIN do not
share a hash. Both use keys derived from CARD_FINGERPRINT_KEY for their purpose alone.
"""

import hmac
from typing import TypedDict

from payments.vault.crypto import keyed_hash

NUMBER_PURPOSE = "giftcards.number"
PIN_PURPOSE = "giftcards.pin"
# Compared against when no card has the number, so an unknown number costs what a wrong PIN costs.
DECOY_PIN_HASH = "0" * 43

BIN_LENGTH = 6
SUB_BIN_LENGTH = 3
LAST4_LENGTH = 4


def number_hash(number: str) -> str:
    """The lookup key of a card number."""
    return keyed_hash(number, purpose=NUMBER_PURPOSE)


def pin_hash(number: str, pin: str) -> str:
    """The stored form of a card's PIN."""
    # NUL cannot appear in a number, so the pair is encoded unambiguously.
    return keyed_hash(f"{number}\x00{pin}", purpose=PIN_PURPOSE)


def pin_matches(number: str, pin: str, expected: str) -> bool:
    """Whether `pin` is the PIN whose hash is `expected`, compared in constant time."""
    return hmac.compare_digest(pin_hash(number, pin).encode("ascii"), expected.encode("ascii"))


class DisplayDigits(TypedDict):
    bin: str
    sub_bin: str
    last4: str


def display_digits(number: str) -> DisplayDigits:
    """The parts of a number the API shows: first 6 (`bin`), next 3 (`sub_bin`) and last 4 (`last4`)."""
    return {
        "bin": number[:BIN_LENGTH],
        "sub_bin": number[BIN_LENGTH : BIN_LENGTH + SUB_BIN_LENGTH],
        "last4": number[-LAST4_LENGTH:],
    }
