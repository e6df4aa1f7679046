"""Partial updates, typed: an update service takes each field it may change as a keyword whose default is
`UNCHANGED`, so a caller names only what changes, `None` stays a value (it clears the field), and a field the
service does not change is a TypeError at the call, not a runtime list of allowed names."""

from __future__ import annotations

import enum
from typing import Final


class Unchanged(enum.Enum):
    """The default of an update's optional fields: leave the stored value as it is."""

    UNCHANGED = "unchanged"


UNCHANGED: Final = Unchanged.UNCHANGED


def changed_fields(**values: object) -> dict[str, object]:
    """The given fields, without those left `UNCHANGED`: what to set and to save."""
    return {name: value for name, value in values.items() if value is not UNCHANGED}
