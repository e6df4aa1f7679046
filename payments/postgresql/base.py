"""The backend Django loads for PostgreSQL: `django.db.backends.postgresql`, with the `compiler` module of this
package, the compiled timestamp loader registered on each new session, and a health check that asks the server only
when the connection has not answered lately."""

from __future__ import annotations

import select
import time

from django.db.backends.postgresql import base, operations
from psycopg import _queries
from psycopg.pq import TransactionStatus

from payments.postgresql.timestamps import timestamps_read_compiled

# psycopg keeps the parsed form of a statement's text (where its placeholders are) in a bounded cache, 128 texts,
# but only for a statement of at most 50 parameters, so a transaction's `INSERT` (about 80 columns) was parsed again
# on every create. The cache is bounded by its entries either way; a wider statement costs it a few hundred bytes
# more. `payments/tests/test_postgresql_backend.py` fails if psycopg stops reading this bound.
_queries.MAX_CACHED_STATEMENT_PARAMS = max(_queries.MAX_CACHED_STATEMENT_PARAMS, 128)


# How long after the server's last answer a connection is trusted without asking it (HikariCP's pools bypass their
# check for 500 ms, PgBouncer's `server_check_delay` for 30 s). A link broken inside this window without the server
# closing it (a failover that moves the database's address) fails that request's first query instead of its check;
# every session the server or a pooler ends is still caught (`_answered_lately`).
ANSWERED_LATELY_SECONDS = 1.0


class DatabaseOperations(operations.DatabaseOperations):
    compiler_module = "payments.postgresql.compiler"


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    # The last time the server answered on this connection (`time.monotonic()`), None before it first did.
    answered_at: float | None = None
    health_check_done: bool  # Django's own flag (set in its __init__), which its type stubs leave out

    def init_connection_state(self) -> None:
        super().init_connection_state()
        timestamps_read_compiled(self)
        self.answered_at = time.monotonic()

    def close_if_health_check_failed(self) -> None:
        """Django's check before a request's first query (`CONN_HEALTH_CHECKS`) is a `SELECT 1`: a round trip on every
        request. It is skipped while the connection answered a request lately and nothing has arrived on it since."""
        if not self.health_check_done and self.settings_dict["CONN_HEALTH_CHECKS"] and self._answered_lately():
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def is_usable(self) -> bool:
        usable = super().is_usable()
        if usable:
            self.answered_at = time.monotonic()
        return usable

    def close_if_unusable_or_obsolete(self) -> None:
        # At a request's end (Django's `request_finished`): a request that used the connection (its health check
        # done, or the connection new) without a connection error has just had the server's answers.
        answered = self.connection is not None and self.health_check_done and not self.errors_occurred
        super().close_if_unusable_or_obsolete()
        if answered and self.connection is not None:
            self.answered_at = time.monotonic()

    def _answered_lately(self) -> bool:
        """The server answered on this connection within `ANSWERED_LATELY_SECONDS`, the connection is idle, and its
        socket has nothing to read. A server that ends a session (restarted, `pg_terminate_backend`, a pooler
        stopping) sends its error and closes the socket: readable, so Django's own check runs and replaces it."""
        connection = self.connection
        if connection is None or self.answered_at is None or not hasattr(select, "poll"):
            return False
        if time.monotonic() - self.answered_at > ANSWERED_LATELY_SECONDS:
            return False
        if connection.closed or connection.broken or connection.info.transaction_status != TransactionStatus.IDLE:
            return False
        waiting = select.poll()
        waiting.register(connection.fileno(), select.POLLIN | select.POLLPRI)
        return not waiting.poll(0)  # POLLHUP and POLLERR are always reported
