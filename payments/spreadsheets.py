"""Cells of a file people open in a spreadsheet (a report, a desk list's export): one rule for both."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from typing import Any


def spreadsheet_cell(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula (=, +, -, @ first) is quoted with a leading apostrophe; null
    is empty and a flag is `true` / `false`."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def csv_lines(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """The rows as CSV text (RFC 4180, CRLF), a line at a time: a response can stream them."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    yield _taken(buffer)
    for row in rows:
        writer.writerow([spreadsheet_cell(value) for value in row])
        yield _taken(buffer)


def _taken(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text
