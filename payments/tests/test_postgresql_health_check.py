"""The PostgreSQL backend's check of a kept connection before a request's first query (`payments.postgresql.base`):
no round trip while the connection answered lately and nothing arrived on it; Django's `SELECT 1` otherwise; a
session the server ended is replaced before the request uses it.

Each test drives a connection of its own (the suite's is inside its test's transaction) the way a server's request
cycle does: `close_if_unusable_or_obsolete` at a request's start and end, then the request's queries. What the server
last received from that connection is read from `pg_stat_activity`."""

import time
from collections.abc import Iterator

import pytest
from django.db import connection

from payments.postgresql import base

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


@pytest.fixture
def kept() -> Iterator[base.DatabaseWrapper]:
    """A connection kept between requests and checked before each one, as production settings make it."""
    settings = {**connection.settings_dict, "CONN_MAX_AGE": 60, "CONN_HEALTH_CHECKS": True}
    wrapper = base.DatabaseWrapper(settings, alias="kept")
    wrapper.ensure_connection()
    yield wrapper
    wrapper.close()


def _request(wrapper: base.DatabaseWrapper, sql: str) -> None:
    """One request: Django's signals at its start and end around one query."""
    wrapper.close_if_unusable_or_obsolete()
    with wrapper.cursor() as cursor:
        cursor.execute(sql)
    wrapper.close_if_unusable_or_obsolete()


def _last_statement(pid: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row[0] if row else ""


def _first_query_of_next_request(wrapper: base.DatabaseWrapper) -> str:
    """What the server received from the connection once the next request has its cursor (before any query)."""
    wrapper.close_if_unusable_or_obsolete()
    wrapper.cursor().close()
    return _last_statement(wrapper.connection.info.backend_pid)


def test_a_connection_that_answered_a_moment_ago_is_not_asked_again(kept: base.DatabaseWrapper) -> None:
    _request(kept, "SELECT 'the last request'")

    assert _first_query_of_next_request(kept) == "SELECT 'the last request'"
    assert kept.health_check_done


def test_a_connection_quiet_for_longer_is_checked_with_djangos_select(kept: base.DatabaseWrapper) -> None:
    _request(kept, "SELECT 'the last request'")
    assert kept.answered_at is not None
    kept.answered_at -= base.ANSWERED_LATELY_SECONDS + 1

    assert _first_query_of_next_request(kept) == "SELECT 1"
    assert kept.answered_at > time.monotonic() - 1  # the check's answer counts


def test_a_session_the_server_ended_is_replaced_before_the_request_uses_it(kept: base.DatabaseWrapper) -> None:
    _request(kept, "SELECT 'the last request'")
    ended = kept.connection.info.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [ended])
    deadline = time.monotonic() + 10
    while _last_statement(ended) and time.monotonic() < deadline:  # the backend is gone once it is not listed
        time.sleep(0.05)

    kept.close_if_unusable_or_obsolete()
    with kept.cursor() as cursor:
        cursor.execute("SELECT 2")
        assert cursor.fetchone() == (2,)

    assert kept.connection.info.backend_pid != ended


def test_a_connection_something_arrived_on_is_checked_with_djangos_select(kept: base.DatabaseWrapper) -> None:
    _request(kept, "LISTEN health_check")
    with connection.cursor() as cursor:
        cursor.execute("NOTIFY health_check")
    time.sleep(0.2)  # the notification crosses the socket

    assert _first_query_of_next_request(kept) == "SELECT 1"
