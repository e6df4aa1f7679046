"""Deleting expired data, app by app, without `payments` knowing the apps.

Each app registers, from its `AppConfig.ready`, a job that deletes one batch of its own expired rows:

    purge.register("checkout-sessions", checkout_sessions_purge_expired)

A job is called as `job(now=..., batch_size=...)`, deletes at most `batch_size` rows that expired at or
before `now`, each batch in its own transaction, and returns how many it deleted. `purge_expired` (the
management command) runs every job until a batch comes back short. Jobs must be safe to run twice at once
(cron overlap): select with `select_for_update(skip_locked=True)` and delete by primary key.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from django.utils import timezone

logger = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 500


class PurgeJob(Protocol):
    def __call__(self, *, now: datetime, batch_size: int) -> int: ...


@dataclass(frozen=True)
class PurgeResult:
    """What one job did in one run: rows deleted, and the error that stopped it early, if any."""

    name: str
    purged: int
    error: Exception | None = None


_jobs: dict[str, PurgeJob] = {}


def register(name: str, job: PurgeJob) -> None:
    """Run `job` on every purge; registering a name again replaces its job, so `ready()` may run twice."""
    _jobs[name] = job


def unregister(name: str) -> None:
    """Forget the job under `name` (tests)."""
    _jobs.pop(name, None)


def registered_jobs() -> dict[str, PurgeJob]:
    """A copy of the registry: name to job, in registration order."""
    return dict(_jobs)


def run_job(job: PurgeJob, *, now: datetime, batch_size: int, on_batch: Callable[[int], None] | None = None) -> int:
    """Call `job` batch after batch until one deletes fewer than `batch_size` rows; return the total."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1.")
    total = 0
    while True:
        purged = job(now=now, batch_size=batch_size)
        total += purged
        if on_batch is not None:
            on_batch(purged)
        # `now` is fixed for the whole run, so rows that expire meanwhile cannot keep the loop going.
        if purged < batch_size:
            return total


def purge_all(
    *, now: datetime, batch_size: int = DEFAULT_BATCH_SIZE, only: set[str] | None = None
) -> Iterator[PurgeResult]:
    """Run every registered job (or those named in `only`); one failing job does not stop the others."""
    for name, job in registered_jobs().items():
        if only is not None and name not in only:
            continue
        purged = 0

        def count(batch: int) -> None:
            nonlocal purged
            purged += batch

        try:
            run_job(job, now=now, batch_size=batch_size, on_batch=count)
        except Exception as exc:
            # The batches already committed stay deleted; the rest waits for the next run.
            logger.exception("Purge job %s failed after deleting %d rows", name, purged)
            yield PurgeResult(name=name, purged=purged, error=exc)
        else:
            yield PurgeResult(name=name, purged=purged)


def purge_registered(*, only: list[str] | None = None, exclude: list[str] | None = None) -> dict[str, int]:
    """Run the registered jobs (those in `only`, less those in `exclude`) now, as a scheduled job; raise after
    running them all when any failed, so the engine records the failure."""
    names = set(only) if only is not None else set(registered_jobs())
    names -= set(exclude or ())
    results = list(purge_all(now=timezone.now(), only=names))
    failed = [result.name for result in results if result.error is not None]
    if failed:
        raise RuntimeError(f"Purge failed for: {', '.join(failed)} (see the log).")
    return {result.name: result.purged for result in results}
