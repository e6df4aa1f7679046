"""Executions on the job engine: made (now, or when a schedule's period ends), run once by one worker under a
lease, and swept when a worker dies (tried again, or failed after REPORT_EXECUTION_MAX_ATTEMPTS).

pending -> processing (a worker holds the lease) -> succeeded (the file is stored) or failed (the reason is kept).
A worker that dies mid-run leaves `processing` with a lease that runs out; `report_executions_sweep` gives it back to
`pending` and queues it again, or fails it honestly once it has used its attempts. The background task is declared
at the end, beside the function it runs.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import task

from payments.postgresql.preparing import statements_unprepared
from reports import schedules
from reports.models import ExecutionStatus, Report, ReportExecution, ReportSchedule
from reports.params import columns, ordering
from reports.services.files import report_file_store, report_storage
from reports.sources import ParamsError, Run, source_named

logger = logging.getLogger(__name__)

WORKER = f"{socket.gethostname()}:{os.getpid()}"
# Reports the scheduler handles per run; the next run takes the rest.
SCHEDULE_BATCH = 200
# Rows written between two looks at the clock, to renew a running execution's lease in time.
HEARTBEAT_ROWS = 100


def report_execution_create(*, report: Report, reference: datetime) -> ReportExecution:
    """A pending execution of `report` for `reference`, queued on the job engine when the transaction commits."""
    execution = ReportExecution.objects.create(
        report=report,
        reference_timestamp=reference,
        reference_timezone=report.schedule_timezone,
        file_format=report.file_format,
    )
    transaction.on_commit(lambda: run_report_execution.enqueue(str(execution.pk)))
    return execution


def reports_schedule_due(*, now: datetime | None = None) -> int:
    """Make the execution of every scheduled report whose period has ended (a scheduled job). A report behind by
    several periods (the workers were down) gets one execution per period, one period per run, none skipped."""
    now = now or timezone.now()
    made = 0
    with transaction.atomic():
        due = list(
            Report.objects.select_for_update(skip_locked=True)
            .filter(schedule_enabled=True, next_execution_at__lte=now)
            .exclude(schedule=ReportSchedule.ONCE)
            .order_by("next_execution_at")[:SCHEDULE_BATCH]
        )
        for report in due:
            zone = schedules.timezone_named(report.schedule_timezone)
            run_at = report.next_execution_at
            if run_at is None:  # never: the filter above
                continue
            reference = schedules.run_reference(report.schedule, run_at, zone)
            try:
                with transaction.atomic():
                    report_execution_create(report=report, reference=reference)
                made += 1
            except IntegrityError:
                pass  # this period's execution exists already (made by the support desk, or an earlier run)
            report.next_execution_at = schedules.next_run(report.schedule, run_at, zone)
            report.save(update_fields=["next_execution_at", "updated_at"])
    if made:
        logger.info("Report scheduler made %d executions", made)
    return made


def _claim(execution_id: str, *, now: datetime, worker: str) -> uuid.UUID | None:
    """Take a pending execution for one attempt: one conditional UPDATE, so one worker wins."""
    token = uuid.uuid4()
    lease = timedelta(seconds=settings.REPORT_EXECUTION_LEASE_SECONDS)
    claimed = ReportExecution.objects.filter(pk=execution_id, status=ExecutionStatus.PENDING).update(
        status=ExecutionStatus.PROCESSING,
        leased_until=now + lease,
        lease_token=token,
        leased_by=worker,
        attempt_count=F("attempt_count") + 1,
        updated_at=now,
    )
    return token if claimed else None


def _finish(execution_id: str, token: uuid.UUID, **values: object) -> bool:
    """Record the outcome under the attempt's own lease: a run whose lease was taken over records nothing."""
    values.setdefault("finished_at", timezone.now())
    updated = ReportExecution.objects.filter(
        pk=execution_id, status=ExecutionStatus.PROCESSING, lease_token=token
    ).update(leased_until=None, lease_token=None, updated_at=timezone.now(), **values)
    return bool(updated)


def report_execution_run(*, execution_id: str, now: datetime | None = None, worker: str = WORKER) -> bool:
    """Run a pending execution once: its rows streamed into a file, the file stored; False when it was not pending
    (another worker has it, or it is done)."""
    now = now or timezone.now()
    token = _claim(execution_id, now=now, worker=worker)
    if token is None:
        return False
    execution = ReportExecution.objects.select_related("report", "report__merchant_account").get(pk=execution_id)
    report = execution.report
    source = source_named(report.model)
    if source is None:
        _finish(execution_id, token, status=ExecutionStatus.FAILED, failure_reason="The report's model is gone.")
        return True
    run = Run(
        merchant_account=report.merchant_account,
        reference=execution.reference_timestamp,
        zone=schedules.timezone_named(execution.reference_timezone),
    )
    header = columns(source, report.params)
    try:
        order = ordering(source, report.params)
        rows = _leased(source.rows(header, report.params.get("filters") or {}, run, order), execution_id, token)
        name, size, count = report_file_store(execution=execution, header=header, rows=rows)
    except ParamsError as exc:
        # The filters were checked at creation; one that no longer holds is the report's fault, said as such.
        _finish(execution_id, token, status=ExecutionStatus.FAILED, failure_reason=exc.message[:500])
        return True
    except Exception:
        # The lease ends now, so the sweep tries again (or fails it once out of attempts) without waiting for it.
        ReportExecution.objects.filter(pk=execution_id, lease_token=token).update(leased_until=timezone.now())
        raise
    stored = {"file_name": name, "file_size": size, "row_count": count}
    if not _finish(execution_id, token, status=ExecutionStatus.SUCCEEDED, **stored):
        # Another attempt owns the execution now (this one stalled past its lease): its own file will be the one.
        report_storage().delete(name)
        logger.warning("Report execution %s: its lease was taken over; this attempt's file was deleted", execution_id)
    return True


class LeaseLost(Exception):
    """The sweep gave this execution to another worker (this one stalled past its lease): stop writing."""


def _leased(rows: Iterator[list[Any]], execution_id: str, token: uuid.UUID) -> Iterator[list[Any]]:
    """The rows, renewing the attempt's lease whenever a third of it has passed: a long report keeps its lease while
    it makes progress, and a worker that dies loses it within REPORT_EXECUTION_LEASE_SECONDS."""
    lease = timedelta(seconds=settings.REPORT_EXECUTION_LEASE_SECONDS)
    renew_every = lease.total_seconds() / 3
    renewed_at = time.monotonic()
    for count, row in enumerate(rows, start=1):
        if count % HEARTBEAT_ROWS == 0 and time.monotonic() - renewed_at >= renew_every:
            kept = ReportExecution.objects.filter(pk=execution_id, lease_token=token).update(
                leased_until=timezone.now() + lease
            )
            if not kept:
                raise LeaseLost(execution_id)
            renewed_at = time.monotonic()
        yield row


def report_executions_sweep(*, now: datetime | None = None) -> tuple[int, int]:
    """Give back the executions whose worker died (lease over) for another attempt, or fail those that used
    their attempts; queue again pending ones whose task was lost. A scheduled job: (requeued, failed)."""
    now = now or timezone.now()
    grace = timedelta(seconds=settings.REPORT_EXECUTION_SWEEP_GRACE_SECONDS)
    abandoned = Q(status=ExecutionStatus.PROCESSING, leased_until__lt=now)
    out_of_attempts = abandoned & Q(attempt_count__gte=settings.REPORT_EXECUTION_MAX_ATTEMPTS)
    failed = ReportExecution.objects.filter(out_of_attempts).update(
        status=ExecutionStatus.FAILED,
        leased_until=None,
        lease_token=None,
        finished_at=now,
        updated_at=now,
        failure_reason=(
            "Every attempt stopped before it finished "
            "(a worker died or an error stopped it; the workers' log says which)."
        ),
    )
    with transaction.atomic():
        given_back = list(
            ReportExecution.objects.select_for_update(skip_locked=True)
            .filter(abandoned)
            .values_list("pk", flat=True)[:SCHEDULE_BATCH]
        )
        ReportExecution.objects.filter(pk__in=given_back).update(
            status=ExecutionStatus.PENDING, leased_until=None, lease_token=None, updated_at=now
        )
    retried = len(given_back)
    lost = given_back + list(
        ReportExecution.objects.filter(status=ExecutionStatus.PENDING, updated_at__lt=now - grace).values_list(
            "pk", flat=True
        )[:SCHEDULE_BATCH]
    )
    # Touched, so the next sweep waits another grace period before queueing the same execution again.
    ReportExecution.objects.filter(pk__in=lost, status=ExecutionStatus.PENDING).update(updated_at=now)
    for execution_id in lost:
        run_report_execution.enqueue(str(execution_id))
    if failed or retried or lost:
        logger.info("Report sweep: %d failed, %d given back, %d queued", failed, retried, len(lost))
    return len(lost), failed


@task()
def run_report_execution(execution_id: str) -> None:
    """Run one report execution (queued when it is made, and again by the sweep), its statements planned for its
    filters each time (`payments.postgresql.preparing`): a worker's connection runs the same report many times."""
    with statements_unprepared(connection):
        report_execution_run(execution_id=execution_id)
