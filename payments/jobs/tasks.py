"""The one task every scheduled job runs through, and the purge of the engine's own finished rows."""

from __future__ import annotations

import logging
import sys
import time
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django_tasks import task
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from payments.database_detail import withhold_database_detail
from payments.jobs.schedule import scheduled_jobs
from payments.postgresql.preparing import statements_unprepared

logger = logging.getLogger(__name__)

# Finished task rows are kept this long (failures can be read in the admin meanwhile).
FINISHED_TASK_RETENTION = timedelta(days=7)
# A task still marked running after this long belonged to a worker that died; the work it stood for is
# redone by its owner's own sweep (webhook deliveries keep their state in their own rows), so the row goes.
ABANDONED_TASK_AGE = timedelta(days=1)


@task()
def run_scheduled_job(name: str) -> None:
    """Run the job `SCHEDULED_JOBS[name]` names, once. Its statements are planned for their values each time
    (`payments.postgresql.preparing`): a job's sweeps and purges filter on skewed data (a state most rows have left),
    and a worker's connection runs each of them every interval."""
    job = scheduled_jobs()[name]
    started = time.monotonic()
    with statements_unprepared(connection):
        job.function()(**job.kwargs)
    logger.info("Scheduled job %s finished in %.0f ms", name, (time.monotonic() - started) * 1000)


def task_results_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Delete one batch of the engine's rows: finished a week ago, or abandoned by a worker that died."""
    finished = DBTaskResult.objects.filter(
        status__in=[TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED],
        finished_at__lte=now - FINISHED_TASK_RETENTION,
    )
    abandoned = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, started_at__lte=now - ABANDONED_TASK_AGE)
    with transaction.atomic():
        ids = list((finished | abandoned).select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch_size])
        DBTaskResult.objects.filter(pk__in=ids).delete()
    return len(ids)


def task_result_withhold_database_detail(sender: type[Any], instance: DBTaskResult[Any, Any], **kwargs: Any) -> None:
    """`pre_save` of the engine's rows: a failed task's traceback, kept a week and read in the admin, is stored
    without what a database error in it quotes (a failing row), as the logs show it."""
    if instance.traceback:
        # The worker stores the traceback while it handles the task's exception: that error, exactly.
        handled = sys.exc_info()[1]
        instance.traceback = withhold_database_detail(instance.traceback, [handled] if handled else [])
