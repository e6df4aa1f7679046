"""Database helpers for writes that must cost as few statements as possible on the request path."""

from __future__ import annotations

import contextlib

from django.db import transaction


def savepoint_if_nested() -> contextlib.AbstractContextManager[object]:
    """Wrap one INSERT that may fail on a unique key: a savepoint when a caller holds a transaction (so the
    failure leaves it usable), nothing in autocommit, where the statement commits or fails on its own and a
    BEGIN and COMMIT around it would only cost two more round trips."""
    return transaction.atomic() if transaction.get_connection().in_atomic_block else contextlib.nullcontext()
