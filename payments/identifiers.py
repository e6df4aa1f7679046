"""Identifier formats every resource shares."""

import uuid

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# Every two-digit group: `base62` takes two digits per division, half the big-number divisions of one at a time
# (a list page renders one `reconciliation_id` per row).
_PAIRS = [high + low for high in _BASE62 for low in _BASE62]


def base62(value: uuid.UUID) -> str:
    """The short form of a UUID sent to processors and shown to merchants (`reconciliation_id`)."""
    number, pairs = value.int, []
    while number:
        number, remainder = divmod(number, 3844)
        pairs.append(_PAIRS[remainder])
    return "".join(reversed(pairs)).lstrip("0") or "0"


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
