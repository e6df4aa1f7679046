"""Keeps card numbers out of log output by masking anything that looks like one before it is formatted."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime

from payments.cards import luhn_valid

MIN_DIGITS = 13
MAX_DIGITS = 19
VISIBLE_PREFIX = 6
VISIBLE_SUFFIX = 4
MASK_CHAR = "*"

# Digit groups joined by single spaces or dashes, the ways card numbers are usually written out.
_DIGIT_CHAIN = re.compile(r"[0-9]+(?:[ -][0-9]+)*")
_SEPARATOR = re.compile(r"[ -]")


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
    # Repeat until stable: digits left visible can join neighbouring digits into a new candidate. Each pass that
    # changes anything hides at least 3 digits, so this ends.
    while True:
        masked = _DIGIT_CHAIN.sub(_mask_chain, text)
        if masked == text:
            return masked
        text = masked


def _render_message(record: logging.LogRecord) -> str:
    """Return the record's formatted message, falling back to a plain rendering when its arguments do not fit."""
    try:
        return record.getMessage()
    except Exception:
        # A format string that does not match its arguments must still not let those arguments out unmasked.
        return f"{record.msg} {record.args!r}"


class CardDataMaskingFilter(logging.Filter):
    """Masks card numbers in a record's message, arguments, exception text and stack text; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite `record` in place so no handler can render a full card number from it."""
        # Formatting first means numbers passed as arguments, even inside containers, are masked too.
        record.msg = mask_card_numbers(_render_message(record))
        record.args = ()
        if record.exc_info and not record.exc_text:
            # Formatters reuse a cached exc_text, so rendering the traceback here keeps them from rebuilding it raw.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_card_numbers(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_card_numbers(record.stack_info)
        return True


# Attributes every LogRecord has; anything else on a record came from `extra=` and is logged as a field.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
# Set by other filters and formatters, or objects whose repr could carry secrets (Django's `request`).
_NOT_FIELDS = frozenset({"request", "request_id"})
_JSON_SCALARS = (str, int, float, bool, type(None))


def _masked(value: object) -> object:
    """Return `value` with card numbers masked in every string it contains."""
    if isinstance(value, str):
        return mask_card_numbers(value)
    if isinstance(value, dict):
        return {str(key): _masked(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_masked(item) for item in value]
    return value


def _is_json_value(value: object) -> bool:
    if isinstance(value, dict):
        return all(_is_json_value(item) for item in value.values())
    if isinstance(value, list | tuple):
        return all(_is_json_value(item) for item in value)
    return isinstance(value, _JSON_SCALARS)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, request id, message, then the record's `extra=` fields.

    Only plain JSON values from `extra=` are kept (never an object's repr), and card numbers are masked in
    them and in the message, as the masking filter does.
    """

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", None),
            "message": mask_card_numbers(record.getMessage()),
        }
        for name, value in vars(record).items():
            if name not in _RECORD_ATTRIBUTES and name not in _NOT_FIELDS and _is_json_value(value):
                entry[name] = _masked(value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = mask_card_numbers(record.exc_text)
        if record.stack_info:
            entry["stack"] = mask_card_numbers(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        """ISO 8601 in UTC with milliseconds, whatever the server's time zone."""
        return datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds")
