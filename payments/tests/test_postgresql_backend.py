"""The PostgreSQL backend (`payments.postgresql`): a one-row INSERT is the statement Django's own compiler writes,
built once; psycopg keeps a transaction row's parsed INSERT; every other save is Django's. (Its kept SELECTs:
tests/test_kept_selects.py.)"""

import datetime
import os
import subprocess
import sys
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.db.backends.postgresql.base import ServerBindingCursor
from django.db.backends.postgresql.compiler import SQLInsertCompiler as DjangoInsertCompiler
from django.db.models import Model, Value
from django.db.models.functions import Upper
from django.db.models.sql import InsertQuery
from django.test.utils import CaptureQueriesContext
from psycopg import Binary, _queries
from psycopg.types.json import Jsonb

from payments.models import MerchantAccount
from payments.postgresql.compiler import _STATEMENTS, SQLInsertCompiler
from tests.processes import ROOT
from transactions.models import Transaction

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _as_saved(row: Model, compiler_class: type[DjangoInsertCompiler]) -> tuple[str, list[Any]]:
    """The statement `Model.save()` sends for a new `row`, as `compiler_class` writes it."""
    model = type(row)
    meta = model._meta
    fields = [field for field in meta.local_concrete_fields if field is not meta.auto_field and not field.generated]
    query = InsertQuery(model)
    query.insert_values(fields, [row])
    compiler = compiler_class(query, connection, "default")
    compiler.returning_fields = meta.db_returning_fields
    [(sql, params)] = compiler.as_sql()
    return sql, [_comparable(param) for param in params]


def _comparable(param: Any) -> Any:
    if isinstance(param, datetime.datetime):
        return datetime.datetime  # an `auto_now` column: the time of each compile
    if isinstance(param, Jsonb | Binary):  # psycopg's wrappers, which compare by identity
        return type(param), param.obj
    return param


@pytest.mark.parametrize("model", [m for m in apps.get_models() if not m._meta.proxy], ids=lambda m: m._meta.label)
def test_every_models_new_row_is_the_insert_django_writes(model: type[Model]) -> None:
    row = model()

    assert _as_saved(row, SQLInsertCompiler) == _as_saved(row, DjangoInsertCompiler)


def test_the_statement_is_built_once_per_model_and_columns() -> None:
    MerchantAccount.objects.create(id="backend-one", display_name="One")
    built = dict(_STATEMENTS)

    MerchantAccount.objects.create(id="backend-two", display_name="Two")

    assert built == _STATEMENTS
    assert any('INSERT INTO "payments_merchantaccount"' in statement.sql for statement in built.values())


def test_a_value_that_is_an_expression_is_written_by_djangos_compiler() -> None:
    account = MerchantAccount(id="backend-expression", display_name=Upper(Value("shop")))

    with CaptureQueriesContext(connection) as queries:
        account.save(force_insert=True)

    assert any(
        query["sql"].startswith('INSERT INTO "payments_merchantaccount"') and "UPPER(" in query["sql"]
        for query in queries.captured_queries
    )
    assert MerchantAccount.objects.get(pk="backend-expression").display_name == "SHOP"


def test_psycopg_keeps_the_parsed_insert_of_a_transactions_row() -> None:
    columns = len([field for field in Transaction._meta.local_concrete_fields if not field.generated])
    assert columns > 50  # wider than psycopg's own bound, which the backend raises
    assert columns <= _queries.MAX_CACHED_STATEMENT_PARAMS
    sql = "SELECT " + ", ".join(["%s::int"] * columns)

    with connection.cursor() as cursor:
        cursor.execute(sql, list(range(columns)))
        hits = _queries._query2pg.cache_info().hits  # the parser of statements sent with their values apart
        cursor.execute(sql, list(range(columns)))

        assert _queries._query2pg.cache_info().hits == hits + 1


def test_statements_are_sent_with_their_values_apart() -> None:
    """Server-side binding: psycopg sends the values beside the text, encoded by its compiled dumpers, and
    PostgreSQL reads them without parsing them out of the statement (docs/performance.md)."""
    connection.ensure_connection()

    assert connection.connection.cursor_factory is ServerBindingCursor
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::int + 1, %s::text", [41, "it's"])
        assert cursor.fetchone() == (42, "it's")


@pytest.mark.parametrize(("setting", "threshold"), [(None, 5), ("true", 5), ("false", None)])
def test_prepared_statements_can_be_turned_off_for_a_pooler(setting: str | None, threshold: int | None) -> None:
    """A statement a connection runs often is prepared (psycopg's threshold, 5 runs), unless
    DATABASE_PREPARED_STATEMENTS=false, for a pooler that cannot carry prepared statements across its transactions."""
    environment = {**os.environ, "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/unused", "DJANGO_DEBUG": "true"}
    environment.pop("DATABASE_PREPARED_STATEMENTS", None)
    if setting is not None:
        environment["DATABASE_PREPARED_STATEMENTS"] = setting
    program = (
        "import django; django.setup(); from django.db import connection; "
        "print(connection.get_connection_params()['prepare_threshold'])"
    )

    printed = subprocess.run(  # noqa: S603 - our own interpreter and settings
        [sys.executable, "-c", program], env=environment, capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.strip()

    assert printed == str(threshold)
