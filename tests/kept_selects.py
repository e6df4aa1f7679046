"""The PostgreSQL backend's kept `SELECT`s, checked against Django's own compiler on every query of the session:
each time a query's text is served from a kept compile, Django compiles a copy of the query as well, and the two must
be the same statement with the same values (`payments/postgresql/compiler.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from psycopg import Binary
from psycopg.types.json import Json, Jsonb

from payments.postgresql import compiler


def comparable(params: tuple[Any, ...]) -> tuple[Any, ...]:
    """Values as compared: psycopg's wrappers compare by identity, so by what they wrap."""
    return tuple((type(value), value.obj) if isinstance(value, Json | Jsonb | Binary) else value for value in params)


class KeptSelectCheck:
    """Every kept compile served while `checking`, compared with the compile of Django's own PostgreSQL compiler."""

    def __init__(self) -> None:
        self.test = ""
        self.differences: list[str] = []

    @contextmanager
    def checking(self) -> Iterator[None]:
        """Compare every kept compile with Django's, for as long as the session runs."""
        kept_as_sql = compiler.SQLCompiler.as_sql
        check = self

        def as_sql(self: compiler.SQLCompiler, with_limits: bool = True, with_col_aliases: bool = False) -> Any:
            sql, params = kept_as_sql(self, with_limits, with_col_aliases)
            if self._kept is not None:
                check.compare(self, (sql, params), with_limits, with_col_aliases)
            return sql, params

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(compiler.SQLCompiler, "as_sql", as_sql)
            yield

    def compare(
        self, kept: compiler.SQLCompiler, served: tuple[str, Any], with_limits: bool, with_col_aliases: bool
    ) -> None:
        djangos = compiler.DjangoSelectCompiler(kept.query.clone(), kept.connection, kept.using, kept.elide_empty)
        sql, params = djangos.as_sql(with_limits, with_col_aliases)
        if (served[0], comparable(served[1])) != (sql, comparable(params)):
            self.differences.append(f"{self.test}: kept {served[0]!r} {served[1]!r}, Django's {sql!r} {params!r}")

    def report(self) -> None:
        if self.differences:
            shown = "\n".join(self.differences[:10])
            pytest.fail(f"{len(self.differences)} kept SELECT(s) unlike Django's own:\n{shown}", pytrace=False)
