"""Django's PostgreSQL compilers, with a one-row `INSERT` whose text is built once per model, columns and returned
columns, as `Model.save()` and `Manager.create()` make them.

Django builds an `INSERT`'s text anew on every save: it quotes each column's name and assembles a placeholder per
value, 5 % of a `POST /transactions`'s instructions over its seven `INSERT`s (a transaction's row has some 80
columns). The text depends on the table, the columns and the columns returned only, so it is kept per those; the
values are made as Django makes them (each field's `pre_save` and `get_db_prep_save`). A save that Django would
write differently (a value that is an expression, a field with a placeholder of its own, several rows, an `ON
CONFLICT` clause, a raw save) is compiled by Django as before.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from django.db.backends.postgresql.compiler import (
    SQLAggregateCompiler,
    SQLCompiler,
    SQLDeleteCompiler,
    SQLUpdateCompiler,
)
from django.db.backends.postgresql.compiler import SQLInsertCompiler as DjangoInsertCompiler
from django.db.models import Field

__all__ = ["SQLAggregateCompiler", "SQLCompiler", "SQLDeleteCompiler", "SQLInsertCompiler", "SQLUpdateCompiler"]


class _Statement(NamedTuple):
    sql: str
    returning_params: tuple[Any, ...]
    # Held here, so that no other field can take their identities (the key) while the statement is kept: a
    # migration's historical models come and go.
    fields: tuple[Field[Any, Any], ...]


# (the columns' fields, the returned fields) by identity -> their statement.
_STATEMENTS: dict[tuple[tuple[int, ...], tuple[int, ...]], _Statement] = {}


class SQLInsertCompiler(DjangoInsertCompiler):
    def as_sql(self) -> list[tuple[str, tuple[Any, ...]]]:  # type: ignore[override]  # (the stubs' shape is a select's)
        query: Any = self.query
        fields: list[Field[Any, Any]] = query.fields
        if len(query.objs) != 1 or not fields or query.on_conflict or query.raw:
            return super().as_sql()
        statement = self._one_row_statement(fields)
        if statement is None:
            return super().as_sql()
        values = [self.prepare_value(field, self.pre_save_val(field, query.objs[0])) for field in fields]
        if any(hasattr(value, "as_sql") for value in values):
            return super().as_sql()  # an expression has a placeholder and params of its own
        self.returning_params = statement.returning_params
        return [(statement.sql, (*values, *statement.returning_params))]

    def _one_row_statement(self, fields: list[Field[Any, Any]]) -> _Statement | None:
        returning = self.returning_fields or ()
        key = (tuple(map(id, fields)), tuple(map(id, returning)))
        statement = _STATEMENTS.get(key)
        if statement is None:
            if any(hasattr(field, "get_placeholder") for field in fields):
                return None
            ops: Any = self.connection.ops
            sql = "INSERT INTO {} ({}) VALUES ({})".format(  # noqa: S608 - quoted names of the model's own table and columns
                ops.quote_name(self.query.get_meta().db_table),
                ", ".join(ops.quote_name(field.column) for field in fields),
                ", ".join(["%s"] * len(fields)),
            )
            returning_params: tuple[Any, ...] = ()
            if returning:
                returning_sql, returning_params = ops.return_insert_columns(returning)
                sql = f"{sql} {returning_sql}"
            statement = _STATEMENTS[key] = _Statement(sql, tuple(returning_params), (*fields, *returning))
        return statement
