"""The PostgreSQL backend (`payments.postgresql`): a one-row INSERT is the statement Django's own compiler writes,
built once; psycopg keeps a transaction row's parsed INSERT; every other save is Django's. (Its kept SELECTs:
tests/test_kept_selects.py.)"""

import datetime
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.db.backends.postgresql.compiler import SQLInsertCompiler as DjangoInsertCompiler
from django.db.models import Model, Value
from django.db.models.functions import Upper
from django.db.models.sql import InsertQuery
from django.test.utils import CaptureQueriesContext
from psycopg import Binary, _queries
from psycopg.types.json import Jsonb

from payments.models import MerchantAccount
from payments.postgresql.compiler import _STATEMENTS, SQLInsertCompiler
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
        hits = _queries._query2pg_client.cache_info().hits
        cursor.execute(sql, list(range(columns)))

        assert _queries._query2pg_client.cache_info().hits == hits + 1
