"""The one harness of the concurrency tests: calls run in threads released together, each on its own database
connection. On PostgreSQL (`@pytest.mark.postgres`, `django_db(transaction=True)`) the row locks and unique
constraints decide the race, never luck."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from django.db import connection

_NOT_DONE = object()


def at_once(calls: Sequence[Callable[[], Any]], *, refusals: bool = False, timeout: float = 60) -> list[Any]:
    """Run each call in its own thread, all released together by a barrier; their results, in the calls' order.

    With `refusals`, what a call raised is its result (the test inspects who was refused); otherwise the first one
    raised fails the test as itself, not as a missing answer. Each thread closes its connection, so that the test
    database stays droppable; a call still running after `timeout` fails the test."""
    start = threading.Barrier(len(calls))
    results: list[Any] = [_NOT_DONE] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            start.wait(timeout=timeout)
            results[index] = call()
        except Exception as error:  # handed to the test: raised there, or kept as a result
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    unfinished = [index for index, result in enumerate(results) if result is _NOT_DONE]
    assert unfinished == [], f"calls {unfinished} did not finish within {timeout}s"
    raised = [result for result in results if isinstance(result, Exception)]
    if raised and not refusals:
        raise raised[0]
    return results


def meeting(parties: int, *, timeout: float = 30) -> Callable[[], None]:
    """A point `parties` racing calls all reach before any goes on (all have read before any writes)."""
    barrier = threading.Barrier(parties)

    def wait() -> None:
        barrier.wait(timeout=timeout)

    return wait
