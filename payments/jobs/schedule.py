"""The schedule (`settings.SCHEDULED_JOBS`) read into typed entries, and claiming one run of an entry."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, transaction
from django.utils.module_loading import import_string

from payments.jobs.models import ScheduledRun

logger = logging.getLogger(__name__)

# Claims of past runs are kept this long, for anyone asking when a job last ran.
RUN_RETENTION = timedelta(days=2)


@dataclass(frozen=True)
class ScheduledJob:
    """One entry of `SCHEDULED_JOBS`: call `call(**kwargs)` every `every` seconds."""

    name: str
    call: str
    every: float
    kwargs: dict[str, Any] = field(default_factory=dict)

    def function(self) -> Callable[..., Any]:
        function = import_string(self.call)
        if not callable(function):
            raise ImproperlyConfigured(f"SCHEDULED_JOBS[{self.name!r}]: {self.call} is not callable.")
        return function  # type: ignore[no-any-return]

    def slot(self, at: datetime) -> int:
        """The run `at` belongs to: clocks fire on whole multiples of the interval, so every worker's clock
        computes the same slot for the same run."""
        return round(at.timestamp() / self.every)


def scheduled_jobs() -> dict[str, ScheduledJob]:
    """Every entry of `SCHEDULED_JOBS`, checked."""
    jobs = {}
    for name, entry in settings.SCHEDULED_JOBS.items():
        every = entry.get("every_seconds")
        if not isinstance(every, int | float) or not math.isfinite(every) or every <= 0:
            raise ImproperlyConfigured(f"SCHEDULED_JOBS[{name!r}] needs a positive 'every_seconds'.")
        call = entry.get("call")
        if not isinstance(call, str):
            raise ImproperlyConfigured(f"SCHEDULED_JOBS[{name!r}] needs a 'call': a dotted path to a function.")
        jobs[name] = ScheduledJob(name=name, call=call, every=float(every), kwargs=dict(entry.get("kwargs", {})))
    return jobs


def scheduled_run_claim(*, job: ScheduledJob, at: datetime, enqueue: Callable[[str], object]) -> bool:
    """Claim the run of `job` due `at` and `enqueue` it, in one transaction; False when another worker already
    claimed it. The claim and the queued task commit together, so a claimed run is never lost."""
    try:
        with transaction.atomic():
            ScheduledRun.objects.create(job=job.name, slot=job.slot(at))
            enqueue(job.name)
    except IntegrityError:
        return False
    return True


def scheduled_runs_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Delete one batch of run claims older than two days."""
    with transaction.atomic():
        ids = list(
            ScheduledRun.objects.select_for_update(skip_locked=True)
            .filter(created_at__lte=now - RUN_RETENTION)
            .values_list("pk", flat=True)[:batch_size]
        )
        ScheduledRun.objects.filter(pk__in=ids).delete()
    return len(ids)
