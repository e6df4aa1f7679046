"""A PostgreSQL session in UTC reads `timestamptz` with psycopg's compiled loader, and the values are Django's."""

import datetime

import pytest
from django.db import connection
from django.test import override_settings
from psycopg.pq import Format

from payments.models import MerchantAccount
from payments.postgresql.timestamps import _TIMESTAMPTZ, _UtcTimestampLoader

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _loaded(sql: str) -> datetime.datetime:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        (value,) = cursor.fetchone()
    return value


def test_the_connection_registers_the_compiled_loader() -> None:
    connection.ensure_connection()

    assert connection.connection.adapters.get_loader(_TIMESTAMPTZ, Format.TEXT) is _UtcTimestampLoader
    with connection.cursor() as cursor:
        loader = cursor.cursor.adapters.get_loader(_TIMESTAMPTZ, Format.TEXT)
    assert loader is _UtcTimestampLoader  # (Django's cursor did not register its own over it)


def test_a_value_is_the_instant_in_utc_as_django_reads_it() -> None:
    value = _loaded("SELECT '2026-03-29 01:30:00.123456+05:30'::timestamptz")

    assert value == datetime.datetime(2026, 3, 28, 20, 0, 0, 123456, tzinfo=datetime.UTC)
    assert value.tzinfo is datetime.UTC
    assert type(_loaded("SELECT now()")).__name__ == "datetime"


def test_a_saved_timestamp_reads_back_equal() -> None:
    account = MerchantAccount.objects.create(id="loader-account", display_name="Loader")

    read = MerchantAccount.objects.get(pk=account.pk)

    assert (read.created_at, read.updated_at) == (account.created_at, account.updated_at)
    assert read.created_at.tzinfo is datetime.UTC


@override_settings(USE_TZ=False)
def test_without_time_zones_django_reads_naive_values_on_its_own_loader() -> None:
    value = _loaded("SELECT '2026-03-29 01:30:00+00'::timestamptz")

    assert value.tzinfo is None
