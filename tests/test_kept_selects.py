"""The PostgreSQL backend's kept SELECTs (`payments/postgresql/compiler.py`): a plain one-table SELECT (with the rows
a `select_related` names) is compiled once per shape, its WHERE on every query, and answers as Django's compile does;
every other query is Django's. (Every kept SELECT of the whole suite is also compared with Django's own compile:
tests/kept_selects.py.)"""

from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.db.models.lookups import GreaterThan

from buyers.models import Buyer
from payments.models import MerchantAccount
from payments.postgresql import compiler
from payments.postgresql.compiler import _SELECTS
from tests.kept_selects import KeptSelectCheck

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


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
        # The rows a `select_related` names, joined to each.
        lambda account: Buyer.objects.select_related("merchant_account").filter(merchant_account=account),
        lambda account: Buyer.objects.select_related("merchant_account").order_by("-created_at", "-pk")[:2],
    ],
)
def test_a_plain_select_is_kept_and_answers_as_djangos(merchant_account, buyers, select) -> None:
    first, again, kept = _twice(select(merchant_account))

    assert kept
    assert [(row.pk, row.display_name) for row in again] == [(row.pk, row.display_name) for row in first]
    assert again  # every case finds rows


def test_a_kept_select_related_sets_each_rows_related_row(merchant_account, buyers, django_assert_num_queries) -> None:
    first, again, kept = _twice(
        Buyer.objects.select_related("merchant_account").filter(merchant_account=merchant_account)
    )

    assert kept
    with django_assert_num_queries(0):
        assert {row.merchant_account.display_name for row in again} == {merchant_account.display_name}
    assert [row.pk for row in again] == [row.pk for row in first]


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
        lambda account: Buyer.objects.select_related().filter(merchant_account=account),  # every relation
        lambda account: Buyer.objects.annotate(n=Count("id")).filter(merchant_account=account),
        lambda account: Buyer.objects.filter(merchant_account=account).order_by("merchant_account__display_name"),
        lambda account: Buyer.objects.filter(merchant_account=account).distinct(),
        lambda account: Buyer.objects.filter(
            Exists(Buyer.objects.filter(pk=OuterRef("pk"), display_name="Ann"))
        ),  # kept outside, the subquery inside is Django's
        # A window in the `WHERE`: Django filters on it around a subquery of its own.
        lambda account: Buyer.objects.filter(
            GreaterThan(Window(RowNumber(), order_by="created_at"), 1), merchant_account=account
        ),
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
