"""Identifier formats every resource shares."""

import uuid

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def base62(value: uuid.UUID) -> str:
    """The short form of a UUID sent to processors and shown to merchants (`reconciliation_id`)."""
    number, digits = value.int, []
    while number:
        number, remainder = divmod(number, 62)
        digits.append(_BASE62[remainder])
    return "".join(reversed(digits)) or "0"


def base62_uuid(text: str) -> uuid.UUID | None:
    """The UUID whose `base62` form is `text`, or None when `text` is the short form of no UUID."""
    number = 0
    for char in text:
        digit = _BASE62.find(char)
        if digit < 0:
            return None
        number = number * 62 + digit
    if not text or number >= 1 << 128 or base62(uuid.UUID(int=number)) != text:
        return None  # empty, too large, or with leading zeros: not a form `base62` ever writes
    return uuid.UUID(int=number)
