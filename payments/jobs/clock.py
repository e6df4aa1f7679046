"""The clock every worker process runs beside its task loop: APScheduler fires each scheduled job on whole
multiples of its interval, and each firing claims its run in the database before enqueueing it.

Every worker on every host runs the same clock; the claim (`scheduled_run_claim`) lets exactly one of them
enqueue each run, and any worker may then execute it. A host whose clock is a little off still computes the
same slot for the same run.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger
from django.db import connections
from django.utils import timezone

from payments.jobs.schedule import ScheduledJob, scheduled_jobs, scheduled_run_claim
from payments.jobs.tasks import run_scheduled_job

logger = logging.getLogger(__name__)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def clock_start() -> BackgroundScheduler:
    """Start firing every entry of `SCHEDULED_JOBS` in a daemon thread; returns the running scheduler."""
    scheduler = BackgroundScheduler(timezone=UTC, job_defaults={"coalesce": True, "max_instances": 1})
    for job in scheduled_jobs().values():
        scheduler.add_job(
            clock_fire,
            IntervalTrigger(seconds=job.every, start_date=_EPOCH, timezone=UTC),
            args=[job],
            id=job.name,
            # A firing delayed by a busy machine still counts within half an interval; later, it waits.
            misfire_grace_time=max(1, int(job.every / 2)),
        )
    scheduler.start()
    return scheduler


def clock_fire(job: ScheduledJob) -> bool:
    """Claim and enqueue the run of `job` due now; False when another worker's clock was first."""
    try:
        claimed = scheduled_run_claim(job=job, at=timezone.now(), enqueue=run_scheduled_job.enqueue)
    except Exception:
        # A database outage must not stop the clock: the next interval tries again.
        logger.exception("Could not enqueue scheduled job %s", job.name)
        return False
    finally:
        # This thread's own connection; the task loop keeps its own.
        connections.close_all()
    if claimed:
        logger.debug("Scheduled job %s enqueued", job.name)
    return claimed
