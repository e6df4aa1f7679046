"""Dates and times on the desk, written as the format module says (`payments/staff/formats/`), in the server's zone."""

from __future__ import annotations

import datetime as dt

from django.utils import formats, timezone


def desk_datetime(value: dt.datetime | None) -> str:
    """`28 Nov 2026, 16:40:07 UTC`."""
    if value is None:
        return "-"
    return formats.date_format(timezone.localtime(value), "DATETIME_FORMAT")


def desk_date(value: dt.datetime | dt.date | None) -> str:
    """`28 Nov 2026`."""
    if value is None:
        return "-"
    if isinstance(value, dt.datetime):
        value = timezone.localtime(value)
    return formats.date_format(value, "DATE_FORMAT")
