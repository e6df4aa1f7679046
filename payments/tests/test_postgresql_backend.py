"""The PostgreSQL backend (`payments.postgresql`): a one-row INSERT is the statement Django's own compiler writes,
built once; psycopg keeps a transaction row's parsed INSERT; every other save is Django's. A plain one-table SELECT
is compiled once per shape, its WHERE on every query; every other query is Django's. (Every kept SELECT of the
whole suite is also compared with Django's own compile: tests/kept_selects.py.)"""

import datetime
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.db.backends.postgresql.compiler import SQLInsertCompiler as DjangoInsertCompiler
from django.db.models import Count, Exists, Model, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Upper
from django.db.models.sql import InsertQuery
from django.test.utils import CaptureQueriesContext
from psycopg import Binary, _queries
from psycopg.types.json import Jsonb

from buyers.models import Buyer
from payments.models import MerchantAccount
from payments.postgresql import compiler
from payments.postgresql.compiler import _SELECTS, _STATEMENTS, SQLInsertCompiler
from tests.kept_selects import KeptSelectCheck
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


@pytest.fixture
def buyers(merchant_account: MerchantAccount) -> list[Buyer]:
    return [
        Buyer.objects.create(merchant_account=merchant_account, display_name=name, external_identifier=f"x-{name}")
        for name in ("Ann", "Bob", "Cy")
    ]


def _twice(queryset: QuerySet[Any]) -> tuple[Any, Any, bool]:
    """Rows of `queryset` as first compiled, as compiled again, and whether the second was a kept compile."""
    first = list(queryset.all())
    query = queryset.all().query
    again = query.get_compiler(queryset.db)
    rows = list(queryset.all())
    again.as_sql()
    return first, rows, again._kept is not None


@pytest.mark.parametrize(
    "select",
    [
        lambda account: Buyer.objects.filter(merchant_account=account),
        lambda account: Buyer.objects.filter(merchant_account=account).order_by("-created_at", "-pk")[:2],
        lambda account: Buyer.objects.filter(merchant_account=account, display_name__icontains="b").order_by("pk"),
        lambda account: Buyer.objects.filter(Q(display_name="Ann") | Q(external_identifier="x-Cy")).order_by("id"),
        lambda account: Buyer.objects.filter(display_name__in=["Ann", "Bob"]).exclude(display_name=None)[1:],
        lambda account: Buyer.objects.filter(merchant_account=account).only("display_name").order_by("display_name"),
        lambda account: Buyer.objects.filter(merchant_account=account).defer("billing_details").reverse(),
        lambda account: Buyer.objects.all(),
    ],
)
def test_a_plain_select_is_kept_and_answers_as_djangos(merchant_account, buyers, select) -> None:
    first, again, kept = _twice(select(merchant_account))

    assert kept
    assert [(row.pk, row.display_name) for row in again] == [(row.pk, row.display_name) for row in first]
    assert again  # every case finds rows


def test_the_kept_text_is_djangos_and_the_values_are_the_querys_own(merchant_account, buyers) -> None:
    _, bob, _ = buyers
    list(Buyer.objects.filter(display_name="Ann", merchant_account=merchant_account))
    query = Buyer.objects.filter(display_name="Bob", merchant_account=merchant_account).query

    kept = query.get_compiler("default").as_sql()
    djangos = compiler.DjangoSelectCompiler(query.clone(), connection, "default").as_sql()

    assert kept == djangos
    assert "Bob" in kept[1]
    assert Buyer.objects.get(display_name="Bob", merchant_account=merchant_account) == bob


@pytest.mark.parametrize(
    "select",
    [
        lambda account: Buyer.objects.filter(merchant_account__display_name="Shop"),  # a join
        lambda account: Buyer.objects.select_related("merchant_account").filter(merchant_account=account),
        lambda account: Buyer.objects.annotate(n=Count("id")).filter(merchant_account=account),
        lambda account: Buyer.objects.filter(merchant_account=account).order_by("merchant_account__display_name"),
        lambda account: Buyer.objects.filter(merchant_account=account).distinct(),
        lambda account: Buyer.objects.filter(
            Exists(Buyer.objects.filter(pk=OuterRef("pk"), display_name="Ann"))
        ),  # kept outside, the subquery inside is Django's
    ],
)
def test_any_other_select_is_djangos(merchant_account, buyers, select) -> None:
    queryset = select(merchant_account)
    list(queryset.all())
    query = queryset.all().query
    compiled = query.get_compiler("default")

    assert compiled.as_sql() == compiler.DjangoSelectCompiler(query.clone(), connection, "default").as_sql()
    if "EXISTS" not in compiled.as_sql()[0]:
        assert compiled._kept is None


def test_a_select_of_no_rows_and_one_locked_are_djangos(merchant_account, buyers) -> None:
    assert list(Buyer.objects.filter(pk__in=[])) == []
    assert list(Buyer.objects.filter(pk__in=[])) == []
    from django.db import transaction

    with transaction.atomic():
        locked = list(Buyer.objects.select_for_update().filter(merchant_account=merchant_account))
        assert len(locked) == 3
    compiled = Buyer.objects.select_for_update().filter(merchant_account=merchant_account).query.get_compiler("default")
    with transaction.atomic():
        assert "FOR UPDATE" in compiled.as_sql()[0]
    assert compiled._kept is None


def test_kept_selects_are_bounded(merchant_account, buyers) -> None:
    for size in range(compiler.SELECTS_KEPT + 5):
        list(Buyer.objects.filter(pk__in=[buyer.pk for buyer in buyers] * (size + 1)).only("pk"))

    assert len(_SELECTS) <= compiler.SELECTS_KEPT


def test_the_suites_check_finds_a_kept_select_unlike_djangos(merchant_account, buyers) -> None:
    check = KeptSelectCheck()
    list(Buyer.objects.filter(display_name="Ann"))
    compiled = Buyer.objects.filter(display_name="Bob").query.get_compiler("default")
    sql, params = compiled.as_sql()

    check.compare(compiled, (sql, params), True, False)
    assert check.differences == []

    check.compare(compiled, (sql.replace("display_name", "external_identifier"), params), True, False)
    check.compare(compiled, (sql, ("Ann",)), True, False)
    assert len(check.differences) == 2
