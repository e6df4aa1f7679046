"""Validation and classification of payment card data, free of framework imports so any layer can use it."""

from __future__ import annotations

import re
from datetime import date
from typing import TypedDict

VISA = "visa"
MASTERCARD = "mastercard"
AMEX = "amex"
DISCOVER = "discover"
JCB = "jcb"
DINERS_CLUB = "diners-club"
UNIONPAY = "unionpay"
MAESTRO = "maestro"

# Each scheme the ranges below tell apart, with the name people know it by (upstream's `CardScheme` ids): the card
# scheme definitions (`GET /card-scheme-definitions`) are the ones of these that a registered processor takes.
SCHEME_NAMES: dict[str, str] = {
    VISA: "Visa",
    MASTERCARD: "Mastercard",
    AMEX: "American Express",
    DISCOVER: "Discover",
    JCB: "JCB",
    DINERS_CLUB: "Diners Club",
    UNIONPAY: "UnionPay",
    MAESTRO: "Maestro",
}

MIN_NUMBER_LENGTH = 13
MAX_NUMBER_LENGTH = 19
BIN_LENGTH = 6
LAST4_LENGTH = 4

# (prefix length, first prefix, last prefix, scheme). None of the ranges overlap, so the order only aids reading.
_SCHEME_RANGES: tuple[tuple[int, int, int, str], ...] = (
    (4, 2221, 2720, MASTERCARD),
    (4, 3528, 3589, JCB),
    (4, 6011, 6011, DISCOVER),
    (4, 6304, 6304, MAESTRO),
    (4, 6759, 6759, MAESTRO),
    (4, 6761, 6763, MAESTRO),
    (3, 300, 305, DINERS_CLUB),
    (3, 644, 649, DISCOVER),
    (2, 34, 34, AMEX),
    (2, 37, 37, AMEX),
    (2, 36, 36, DINERS_CLUB),
    (2, 38, 38, DINERS_CLUB),
    (2, 50, 50, MAESTRO),
    (2, 51, 55, MASTERCARD),
    (2, 56, 58, MAESTRO),
    (2, 62, 62, UNIONPAY),
    (2, 65, 65, DISCOVER),
    (1, 4, 4, VISA),
)

# Explicit ASCII classes: str.isdigit() and \d also accept superscripts and non-Latin digits.
_EXPIRATION_DATE = re.compile(r"([0-9]{2})/([0-9]{2})")


class CardDataError(ValueError):
    """Invalid card data; the message is safe to show and log because it never repeats the input."""

    def __init__(self, message: str, *, code: str = "invalid") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class CardDisplay(TypedDict):
    """The parts of a card number that may be stored and shown in clear."""

    bin: str
    last4: str
    scheme: str | None


def _is_ascii_digits(value: object) -> bool:
    """Return True only for a non-empty string made of the characters 0-9."""
    return isinstance(value, str) and value.isascii() and value.isdigit()


def luhn_valid(number: str) -> bool:
    """Return True only for a non-empty ASCII digit string whose Luhn checksum is zero."""
    if not _is_ascii_digits(number):
        return False
    total = 0
    for position, char in enumerate(reversed(number)):
        digit = ord(char) - ord("0")
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def card_scheme(number: str) -> str | None:
    """Return the scheme whose issuer prefix `number` starts with, or None when no known range matches."""
    if not _is_ascii_digits(number):
        return None
    for length, first, last, scheme in _SCHEME_RANGES:
        if len(number) >= length and first <= int(number[:length]) <= last:
            return scheme
    return None


def security_code_length(scheme: str | None) -> int:
    """Return how many digits the security code of a card of `scheme` has."""
    return 4 if scheme == AMEX else 3


def parse_expiration_date(value: str, *, today: date) -> tuple[int, int]:
    """Return (month, four-digit year) for an exact `MM/YY` value whose month has not ended before `today`."""
    match = _EXPIRATION_DATE.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise CardDataError("Expiration date must use the MM/YY format.", code="invalid_format")
    month, year = int(match[1]), 2000 + int(match[2])
    if not 1 <= month <= 12:
        raise CardDataError("Expiration month must be between 01 and 12.", code="invalid_month")
    # A card stays usable through the last day of its expiry month, so only earlier months are expired.
    if (year, month) < (today.year, today.month):
        raise CardDataError("Card has expired.", code="expired")
    return month, year


def _require_number_shape(number: str) -> None:
    """Raise CardDataError unless `number` is 13-19 ASCII digits."""
    if not _is_ascii_digits(number):
        raise CardDataError("Card number must contain only digits.", code="invalid_characters")
    if not MIN_NUMBER_LENGTH <= len(number) <= MAX_NUMBER_LENGTH:
        raise CardDataError("Card number must be 13 to 19 digits long.", code="invalid_length")


def validate_card_number(number: str) -> None:
    """Raise CardDataError, without echoing the number, unless it is 13-19 digits that pass the Luhn check."""
    _require_number_shape(number)
    if not luhn_valid(number):
        raise CardDataError("Card number is invalid.", code="invalid_checksum")


def validate_security_code(code: str, scheme: str | None) -> None:
    """Raise CardDataError, without echoing the code, unless it has exactly the digit count `scheme` uses."""
    if not _is_ascii_digits(code):
        raise CardDataError("Security code must contain only digits.", code="invalid_characters")
    expected = security_code_length(scheme)
    if len(code) != expected:
        raise CardDataError(f"Security code must be {expected} digits long.", code="invalid_length")


def card_display(number: str) -> CardDisplay:
    """Return the BIN (first 6 digits), last 4 digits and scheme, which are all a stored card may reveal."""
    # A shorter value would let the BIN and last 4 together expose most or all of it.
    _require_number_shape(number)
    return {"bin": number[:BIN_LENGTH], "last4": number[-LAST4_LENGTH:], "scheme": card_scheme(number)}
