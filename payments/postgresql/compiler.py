"""Django's PostgreSQL compilers, with a one-row `INSERT` whose text is built once per model, columns and returned
columns, as `Model.save()` and `Manager.create()` make them, and a plain `SELECT` of one table whose text is built
once per shape.

Django builds an `INSERT`'s text anew on every save: it quotes each column's name and assembles a placeholder per
value, 5 % of a `POST /transactions`'s instructions over its seven `INSERT`s (a transaction's row has some 80
columns). The text depends on the table, the columns and the columns returned only, so it is kept per those; the
values are made as Django makes them (each field's `pre_save` and `get_db_prep_save`). A save that Django would
write differently (a value that is an expression, a field with a placeholder of its own, several rows, an `ON
CONFLICT` clause, a raw save) is compiled by Django as before.

A `SELECT` of one model's rows from its own table (no join but those of a `select_related` naming its relations, no
annotation, `values()`, `extra`, `DISTINCT`, grouping, locking or subquery; ordered by the model's own columns) is
compiled by Django once per model, `WHERE` text, ordering, slice, deferred columns and related rows selected. Its
`WHERE` is compiled on every query (that is where the values are), the rest of the text, the selected columns and their
converters are kept: about half of such a query's compile, which Django repeats for every query (the column list, the
`ORDER BY`, the `FROM`), and most of it for a page of transactions with the two rows `select_related` adds to each.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db.backends.postgresql.compiler import SQLAggregateCompiler, SQLDeleteCompiler, SQLUpdateCompiler
from django.db.backends.postgresql.compiler import SQLCompiler as DjangoSelectCompiler
from django.db.backends.postgresql.compiler import SQLInsertCompiler as DjangoInsertCompiler
from django.db.models import Field
from django.db.models.expressions import Col

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


class _Select(NamedTuple):
    """What Django's compiler made for one shape of `SELECT`, besides its `WHERE`'s values."""

    sql: str
    select: list[Any]
    klass_info: dict[str, Any] | None
    annotation_col_map: dict[str, int] | None
    has_extra_select: bool
    converters: dict[int, Any]


# A shape (see `_select_shape`, and the `WHERE` text) -> its kept compile, or None for a shape Django writes with values
# outside its `WHERE`. Bounded: a `WHERE` of `IN` lists of many lengths makes a shape per length.
_SELECTS: dict[tuple[Any, ...], _Select | None] = {}
SELECTS_KEPT = 1024
_UNSEEN = _Select("", [], None, None, False, {})


def _select_shape(query: Any, with_limits: bool, with_col_aliases: bool) -> tuple[Any, ...] | None:
    """What a plain one-table `SELECT`'s text depends on besides its `WHERE`, or None for any other query."""
    aliases = tuple(alias for alias in query.alias_map if query.alias_refcount[alias])  # a trimmed join is unused
    if (
        query.select_related is True
        or query.annotations
        or query.extra
        or query.extra_tables
        or query.extra_order_by
        or query.select
        or query.values_select
        or query.selected is not None
        or not query.default_cols
        or query.distinct
        or query.combinator
        or query.group_by is not None
        or query.subquery
        or query.select_for_update
        or query.explain_info
        or query.external_aliases
        or len(aliases) > 1  # a join
        or query.model is None
        or query.model._meta.parents
        or not all(type(name) is str and "__" not in name for name in query.order_by)
    ):
        return None
    return (
        query.model,
        aliases,
        query.alias_cols,
        query.order_by,
        query.default_ordering,
        query.standard_ordering,
        query.low_mark,
        query.high_mark,
        frozenset(query.deferred_loading[0]),
        query.deferred_loading[1],
        _related_shape(query.select_related or {}),
        with_limits,
        with_col_aliases,
    )


def _related_shape(related: dict[str, Any]) -> tuple[Any, ...]:
    """A `select_related`'s relations (names, each with those selected beyond it) as a key."""
    return tuple(sorted((name, _related_shape(beyond)) for name, beyond in related.items()))


def _joins_selected(query: Any, select: list[Any]) -> bool:
    """Every table the compile joined is one whose columns it selects (a `select_related`'s), none an ordering's."""
    joined = {alias for alias, count in query.alias_refcount.items() if count and alias != query.base_table}
    selected = {column[0].alias for column in select if isinstance(column[0], Col)}
    return joined <= selected


class SQLCompiler(DjangoSelectCompiler):
    _kept: _Select | None = None

    def as_sql(self, with_limits: bool = True, with_col_aliases: bool = False) -> tuple[str, tuple[Any, ...]]:
        self._kept = None
        shape = _select_shape(self.query, with_limits, with_col_aliases)
        if shape is None:
            return super().as_sql(with_limits, with_col_aliases)
        where: str
        params: Sequence[Any]
        try:
            where, params = self.compile(self.query.where)  # type: ignore[arg-type]  # (a node compiles as one)
        except EmptyResultSet:
            return super().as_sql(with_limits, with_col_aliases)  # Django's own answer to a query of no rows
        except FullResultSet:
            where, params = "", ()
        key = (*shape, self.using, where)
        kept = _SELECTS.get(key, _UNSEEN)
        if kept is _UNSEEN:
            return self._compile_and_keep(key, where, len(params), with_limits, with_col_aliases)
        if kept is None:
            return super().as_sql(with_limits, with_col_aliases)
        self._kept = kept
        self.select, self.klass_info, self.annotation_col_map = kept.select, kept.klass_info, kept.annotation_col_map
        self.col_count, self.has_extra_select = len(kept.select), kept.has_extra_select
        return kept.sql, tuple(params)

    def _compile_and_keep(
        self, key: tuple[Any, ...], where: str, where_params: int, with_limits: bool, with_col_aliases: bool
    ) -> tuple[str, tuple[Any, ...]]:
        sql, params = super().as_sql(with_limits, with_col_aliases)
        # Kept only when every value is the `WHERE`'s, the `WHERE` is in the text as compiled (Django filters on a
        # window in it around a subquery, and moves an aggregate to a `HAVING`) and every join added while compiling
        # is a `select_related`'s (not an ordering's).
        keepable = (
            len(params) == where_params and _joins_selected(self.query, self.select) and (not where or where in sql)
        )
        kept = None
        if keepable:
            fields = [column[0] for column in self.select[: self.col_count]]
            converters = super().get_converters(fields)
            made = (self.select, self.klass_info, self.annotation_col_map, self.has_extra_select)
            kept = _Select(sql, *made, converters)
        if len(_SELECTS) >= SELECTS_KEPT:
            _SELECTS.clear()
        _SELECTS[key] = kept
        return sql, params

    def get_converters(self, expressions: list[Any]) -> dict[int, Any]:
        kept = self._kept
        if (
            kept is not None
            and len(expressions) == len(kept.select)
            and all(map(operator.is_, expressions, (column[0] for column in kept.select)))
        ):
            return kept.converters
        return super().get_converters(expressions)
