"""Statements sent unprepared for a block: each planned for the values it carries.

psycopg prepares a statement a connection has run `prepare_threshold` times (config/settings.py), and PostgreSQL then
may run it on a generic plan, one chosen without the values. Where the values decide the plan (a search, a filter over
skewed data) that can read every row where their own plan reads a few. What runs this way: the API's searches and
filters and every desk request (`payments.middleware.plans`, which says what was measured), and in the worker each
scheduled job and each report execution.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper


@contextmanager
def statements_unprepared(connection: BaseDatabaseWrapper) -> Iterator[None]:
    """Every statement `connection` runs inside the block is sent unprepared, and none it prepared earlier is used
    (psycopg reads the threshold as it sends each statement). Nothing connects for it: a block that runs no statement
    needs no database. Any other database: nothing changes."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.execute_wrapper(_unprepared):
        yield


def _unprepared(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
    session = context["connection"].connection
    kept = session.prepare_threshold
    session.prepare_threshold = None
    try:
        return execute(sql, params, many, context)
    finally:
        session.prepare_threshold = kept
