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
