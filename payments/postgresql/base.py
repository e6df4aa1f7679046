"""The backend Django loads for PostgreSQL: `django.db.backends.postgresql`, with the `compiler` module of this
package and the compiled timestamp loader registered on each new session."""

from __future__ import annotations

from django.db.backends.postgresql import base, operations
from psycopg import _queries

from payments.postgresql.timestamps import timestamps_read_compiled

# psycopg keeps the parsed form of a statement's text (where its placeholders are) in a bounded cache, 128 texts,
# but only for a statement of at most 50 parameters, so a transaction's `INSERT` (about 80 columns) was parsed again
# on every create. The cache is bounded by its entries either way; a wider statement costs it a few hundred bytes
# more. `payments/tests/test_postgresql_backend.py` fails if psycopg stops reading this bound.
_queries.MAX_CACHED_STATEMENT_PARAMS = max(_queries.MAX_CACHED_STATEMENT_PARAMS, 128)


class DatabaseOperations(operations.DatabaseOperations):
    compiler_module = "payments.postgresql.compiler"


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def init_connection_state(self) -> None:
        super().init_connection_state()
        timestamps_read_compiled(self)
