"""Masking of card numbers in free text (log lines, error messages, pointers): only BIN and last 4 stay visible."""

from __future__ import annotations

import re

from payments.vault.cards import luhn_valid

MIN_DIGITS = 13
MAX_DIGITS = 19
VISIBLE_PREFIX = 6
VISIBLE_SUFFIX = 4
MASK_CHAR = "*"

# Digit groups joined by single spaces or dashes, the ways card numbers are usually written out; or a UUID, taken
# whole so that no chain starts inside it: its groups of digits between dashes are an identifier's, not a card's
# (`ecf5dc59-3916-4449-8412-4bf4...` holds the Luhn-valid 3916 4449 8412 4). One of digits only is read as digits.
_DIGIT_CHAIN = re.compile(r"(?P<uuid>[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})|[0-9]+(?:[ -][0-9]+)*")
_SEPARATOR = re.compile(r"[ -]")
# Thirteen digits with at most one separator between neighbours: found in a text exactly when one of its digit chains
# is long enough to hold a card number. Most texts (every access log field) have none, and one search in C settles it.
_CARD_LENGTH_CHAIN = re.compile(r"[0-9](?:[ -]?[0-9]){12}")


def _hidden_positions(groups: list[str]) -> set[int]:
    """Return indexes, counted over the chain's digits only, that some Luhn-valid 13-19 digit window must hide."""
    starts, total = [], 0
    for group in groups:
        starts.append(total)
        total += len(group)
    digits = "".join(groups)
    hidden: set[int] = set()
    # Candidates start and end on group boundaries, so "ref 1234 4111 1111 1111 1111" still yields the card.
    for first, start in enumerate(starts):
        for last in range(first, len(groups)):
            end = starts[last] + len(groups[last])
            if end - start > MAX_DIGITS:
                break
            if end - start >= MIN_DIGITS and luhn_valid(digits[start:end]):
                hidden.update(range(start + VISIBLE_PREFIX, end - VISIBLE_SUFFIX))
    return hidden


def _mask_chain(match: re.Match[str]) -> str:
    """Return one digit chain with the hidden digits of every card number in it replaced by the mask character."""
    chain = match.group()
    if match.group("uuid") and not chain.replace("-", "").isdigit():
        return chain
    groups = _SEPARATOR.split(chain)
    if sum(map(len, groups)) < MIN_DIGITS:
        return chain
    hidden = _hidden_positions(groups)
    if not hidden:
        return chain
    masked, digit_index = [], 0
    for char in chain:
        if char.isdigit():
            masked.append(MASK_CHAR if digit_index in hidden else char)
            digit_index += 1
        else:
            masked.append(char)
    return "".join(masked)


def mask_card_numbers(text: str) -> str:
    """Return `text` with each Luhn-valid 13-19 digit number reduced to at most its first 6 and last 4 digits."""
    if not _CARD_LENGTH_CHAIN.search(text):
        return text
    # Repeat until stable: digits left visible can join neighbouring digits into a new candidate. Each pass that
    # changes anything hides at least 3 digits, so this ends.
    while True:
        masked = _DIGIT_CHAIN.sub(_mask_chain, text)
        if masked == text:
            return masked
        text = masked
