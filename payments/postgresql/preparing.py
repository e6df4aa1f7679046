"""Statements sent unprepared for a block: each planned for the values it carries.

psycopg prepares a statement a connection has run `prepare_threshold` times (config/settings.py), and PostgreSQL then
may run it on a generic plan, one chosen without the values. Where the values decide the plan (a search, a filter over
skewed data) that can read every row where their own plan reads a few. What runs this way: the API's searches and
filters and every desk request (`payments.middleware.plans`, which says what was measured), and in the worker each
scheduled job and each report execution.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db.backends.base.base import BaseDatabaseWrapper


@contextmanager
def statements_unprepared(connection: BaseDatabaseWrapper) -> Iterator[None]:
    """Inside the block, `connection` prepares nothing and runs nothing it prepared earlier (psycopg reads the
    threshold at every statement); the threshold is back as it was after. Any other database: nothing changes."""
    if connection.vendor != "postgresql":
        yield
        return
    # The session the block's statements will run on: a kept one that fails its check is replaced here, as the
    # block's first statement would replace it, not after its threshold was changed.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    session = connection.connection
    kept = session.prepare_threshold
    session.prepare_threshold = None
    try:
        yield
    finally:
        if not session.closed:
            session.prepare_threshold = kept
