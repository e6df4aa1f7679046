"""What the BIN table says of a card, in upstream's words, and how a published range becomes the table's prefixes."""

from __future__ import annotations

from dataclasses import dataclass

# Upstream's `CardType`.
CARD_TYPES = ("credit", "debit", "prepaid")
# The most digits of a card number that leave the vault for a lookup, and the fewest the API takes (upstream's
# `bin`: 6 to 8 digits).
MAX_BIN_LENGTH = 8
MIN_BIN_LENGTH = 6


@dataclass(frozen=True)
class CardFacts:
    """What a card is, by its issuer's range: each part None where the table does not say."""

    scheme: str | None = None
    card_type: str | None = None
    country: str | None = None
    issuer_name: str | None = None


UNKNOWN = CardFacts()


def covering_prefixes(start: str, end: str) -> list[str]:
    """The fewest prefixes whose cards are exactly those of the range `start`..`end` (digit strings of one length):
    base-10 blocks, as CIDR blocks cover an address range. 400000..499999 is `4`; 222100..272099 is 23 prefixes."""
    length = len(start)
    low, high = int(start), int(end)
    prefixes: list[str] = []
    while low <= high:
        drop = 0  # trailing digits the block leaves free; a prefix keeps at least one digit
        while drop + 1 < length and low % 10 ** (drop + 1) == 0 and low + 10 ** (drop + 1) - 1 <= high:
            drop += 1
        prefixes.append(str(low // 10**drop).zfill(length - drop))
        low += 10**drop
    return prefixes
