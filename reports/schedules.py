"""When a scheduled report runs, and what its date-time placeholders mean, in the report's own timezone.

Every period starts at local midnight (a day; a week on Monday; a month on its first), computed on the wall clock
with `zoneinfo` and only then turned into an instant, so a daily report runs at 00:00 local on both sides of a
daylight saving change (23 or 25 hours apart across it). A run at the end of a period reports that period: its
reference timestamp is the period's start, which is what `day_start`, `week_start`, `month_start` and their ends
resolve against (docs/reports.md).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

PERIODS = ("day", "week", "month")
PLACEHOLDERS = frozenset(f"{period}_{edge}" for period in PERIODS for edge in ("start", "end"))
_SCHEDULE_PERIOD = {"daily": "day", "weekly": "week", "monthly": "month"}


class UnknownTimezone(ValueError):
    """Not an IANA timezone name this server knows."""


def timezone_named(name: str) -> ZoneInfo:
    """The IANA timezone `name` (`Europe/London`, `Etc/UTC`); anything else (a path, an offset) is refused."""
    # available_timezones() keeps names to the tz database's own, never a file path ZoneInfo would also open.
    if name not in _known_timezones():
        raise UnknownTimezone(name)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise UnknownTimezone(name) from exc


_ZONES: frozenset[str] | None = None


def _known_timezones() -> frozenset[str]:
    global _ZONES
    if _ZONES is None:
        _ZONES = frozenset(available_timezones() | {"UTC"})
    return _ZONES


def _midnight(day: date, zone: ZoneInfo) -> datetime:
    """Local midnight of `day` as an instant in UTC (a midnight a DST change skips is read at the old offset, so
    it lands on the first instant of the day that exists)."""
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def period_start(period: str, at: datetime, zone: ZoneInfo) -> datetime:
    """The start of the local day, week (Monday) or month holding the instant `at`."""
    local = at.astimezone(zone).date()
    if period == "week":
        local -= timedelta(days=local.weekday())
    elif period == "month":
        local = local.replace(day=1)
    return _midnight(local, zone)


def period_after(period: str, start: datetime, zone: ZoneInfo) -> datetime:
    """The start of the period following the one that starts at `start` (on the wall clock, not by adding hours)."""
    local = start.astimezone(zone).date()
    if period == "day":
        following = local + timedelta(days=1)
    elif period == "week":
        following = local + timedelta(days=7)
    else:
        following = date(local.year + local.month // 12, local.month % 12 + 1, 1)
    return _midnight(following, zone)


def first_run_after(schedule: str, now: datetime, zone: ZoneInfo) -> datetime:
    """When a `daily`, `weekly` or `monthly` report enabled at `now` first runs: the end of the current period."""
    period = _SCHEDULE_PERIOD[schedule]
    return period_after(period, period_start(period, now, zone), zone)


def run_reference(schedule: str, run_at: datetime, zone: ZoneInfo) -> datetime:
    """The reference timestamp of the run due at `run_at`: the start of the period it reports (the one ending)."""
    period = _SCHEDULE_PERIOD[schedule]
    return period_start(period, run_at - timedelta(microseconds=1), zone)


def next_run(schedule: str, run_at: datetime, zone: ZoneInfo) -> datetime:
    """The run after the one due at `run_at`."""
    return period_after(_SCHEDULE_PERIOD[schedule], run_at, zone)


def placeholder_value(name: str, reference: datetime, zone: ZoneInfo) -> datetime:
    """`day_start` ... `month_end` for a run whose reference timestamp is `reference`; an end is the last
    microsecond of its period, as the list filters' `_lte` bounds include their value."""
    period, edge = name.rsplit("_", 1)
    start = period_start(period, reference, zone)
    if edge == "start":
        return start
    return period_after(period, start, zone) - timedelta(microseconds=1)
