"""What a definition field's value may be: one rule per field, declared with the field (`DefinitionField.rule`) and
applied wherever a value is written or used (`paymentservices.services`, `paymentservices.routing`).

Rules are ASCII by construction: explicit `[A-Za-z0-9]` classes matched with `re.ASCII`, never `str.isalnum()` or
`\\w` (which take other scripts' letters and digits), so no rule admits whitespace, a control character or a
character another script would render as a letter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class FieldRule:
    """A field's shape: the whole value matches `pattern` and has at most `max_length` characters. `shape` says in
    words what a good value looks like (it ends a refusal; it never quotes the value) and `example` is one such value
    (documentation and tests: it must pass the rule)."""

    pattern: str
    max_length: int
    shape: str
    example: str

    def refusal(self, value: str) -> str | None:
        """Why `value` is refused, in words safe to show (never the value itself), or None when it fits."""
        if len(value) > self.max_length:
            return f"has at most {self.max_length} characters"
        if re.fullmatch(self.pattern, value, flags=re.ASCII) is None:
            return self.shape
        return None


# A field whose processor documents no format and that never becomes part of a URL or a host (a key sent in a
# header): any printable ASCII character but the space, bounded.
OPAQUE_SECRET = FieldRule(
    pattern=r"[\x21-\x7e]+",
    max_length=255,
    shape="is printable ASCII with no spaces",
    example="AQE1+opaque/key=-x",
)

# What a field declares when it says nothing: an identifier (ASCII letters and digits, with `_` and `-` inside), so a
# field added without thought can carry no URL, host or path syntax.
IDENTIFIER = FieldRule(
    pattern=r"[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?",
    max_length=100,
    shape="has only ASCII letters, digits, '_' and '-' (starting and ending with a letter or digit)",
    example="merchant_123",
)
