"""The date-time filter every report model shares: `{"start": ..., "end": ...}`, each bound an ISO 8601 date-time
(UTC when it names no offset), a placeholder resolved in the report's timezone (`day_start` ... `month_end`), or
null for an open side; both inclusive."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from reports.schedules import PLACEHOLDERS, placeholder_value
from reports.sources import ParamsError, Run


def _instant(value: object, pointer: str, run: Run) -> datetime | None:
    """A date-time filter's bound: an ISO 8601 date-time (UTC when it names no offset), a placeholder, or null."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ParamsError(pointer, "Must be an ISO 8601 date-time, a placeholder or null.")
    if value in PLACEHOLDERS:
        return placeholder_value(value, run.reference, run.zone)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        names = ", ".join(sorted(PLACEHOLDERS))
        raise ParamsError(pointer, f"Must be an ISO 8601 date-time or one of {names}.") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def date_range(name: str, value: object, run: Run) -> tuple[datetime | None, datetime | None]:
    pointer = f"/filters/{name}"
    if not isinstance(value, Mapping) or set(value) - {"start", "end"}:
        raise ParamsError(pointer, "Must be an object with `start` and `end`.")
    start = _instant(value.get("start"), f"{pointer}/start", run)
    end = _instant(value.get("end"), f"{pointer}/end", run)
    if start is None and end is None:
        raise ParamsError(pointer, "Give `start`, `end` or both.")
    if start is not None and end is not None and start > end:
        raise ParamsError(pointer, "`start` must not be after `end`.")
    return start, end
