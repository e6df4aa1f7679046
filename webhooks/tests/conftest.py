"""Fixtures for webhook tests: a real receiver on 127.0.0.1, settings that allow it, and a task runner."""

from collections.abc import Iterator

import pytest
from django_tasks_db.models import DBTaskResult

from webhooks.selectors import forget_active_subscriptions
from webhooks.tests.receiver import Receiver, running_receiver


@pytest.fixture(autouse=True)
def _webhook_settings(settings):
    """Production rules (pytest runs with DEBUG off) with the test receiver's host allowed, and short timeouts."""
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    settings.WEBHOOK_RETRY_JITTER = 0.25
    forget_active_subscriptions()
    yield
    forget_active_subscriptions()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


def run_tasks(limit: int = 100, only: str | None = None) -> int:
    """Run every queued task that is due, oldest first, as a worker would (tasks they queue too), or only the
    tasks whose function is named `only`; returns how many ran."""
    ran = 0
    while ran < limit:
        ready = DBTaskResult.objects.ready().order_by("enqueued_at")
        if only is not None:
            ready = ready.filter(task_path__endswith=f".{only}")
        result = ready.first()
        if result is None:
            return ran
        result.claim("test-worker")
        task_result = result.task_result
        result.task.call(*task_result.args, **task_result.kwargs)
        result.set_successful(None)
        ran += 1
    raise AssertionError("tasks keep queueing tasks")
