"""The concurrency tests' harness: released together, answers in order, refusals kept or raised, connections
closed."""

import threading

import pytest
from django.db import connection, connections

from payments.tests.races import at_once, meeting


def test_calls_run_in_their_own_threads_at_once_and_answer_in_order():
    everyone_in = meeting(3, timeout=10)  # only passes if all three run at the same time

    def call(number: int):
        def run() -> tuple[int, bool]:
            everyone_in()
            return number, threading.current_thread() is not threading.main_thread()

        return run

    assert at_once([call(number) for number in range(3)]) == [(0, True), (1, True), (2, True)]


def test_a_refusal_fails_the_race_unless_refusals_are_results():
    def refused() -> None:
        raise LookupError("refused")

    with pytest.raises(LookupError, match="refused"):
        at_once([lambda: 1, refused])
    results = at_once([lambda: 1, refused], refusals=True)
    assert results[0] == 1
    assert isinstance(results[1], LookupError)


def test_a_call_that_does_not_finish_fails_the_race():
    released = threading.Event()
    try:
        with pytest.raises(AssertionError, match=r"calls \[1\] did not finish"):
            at_once([lambda: 1, lambda: released.wait(5)], timeout=0.2)
    finally:
        released.set()


@pytest.mark.postgres  # SQLite's in-memory test database is never closed
@pytest.mark.django_db(transaction=True)
def test_each_thread_closes_its_own_connection():
    used: list = []

    def query() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        used.append(connections["default"])

    at_once([query, query])
    assert len({id(each) for each in used}) == 2
    assert all(each.connection is None for each in used)
