"""Executions on the job engine: one winner per attempt, a dead worker's execution retried or failed honestly, files
deleted after the retention."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from reports.models import ExecutionStatus, ReportExecution
from reports.services.executions import report_execution_run, report_executions_sweep
from reports.services.files import report_files_purge_expired, report_storage
from reports.tests.factories import ReportFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def execution(merchant_account):
    report = ReportFactory(merchant_account=merchant_account)
    return ReportExecution.objects.create(report=report, reference_timestamp=timezone.now(), reference_timezone="UTC")


def _abandon(execution, *, attempts):
    """What a worker killed mid-run leaves: processing, under a lease that ran out."""
    ReportExecution.objects.filter(pk=execution.pk).update(
        status=ExecutionStatus.PROCESSING,
        attempt_count=attempts,
        leased_until=timezone.now() - timedelta(seconds=1),
        lease_token="00000000-0000-0000-0000-000000000001",
    )


def test_a_dead_workers_execution_is_given_back_and_queued(execution, settings):
    settings.REPORT_EXECUTION_MAX_ATTEMPTS = 3
    _abandon(execution, attempts=1)

    report_executions_sweep(now=timezone.now() + timedelta(seconds=settings.REPORT_EXECUTION_SWEEP_GRACE_SECONDS + 1))

    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.PENDING
    assert DBTaskResult.objects.filter(args_kwargs__args=[str(execution.pk)]).exists()
    assert report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    assert (execution.status, execution.attempt_count) == (ExecutionStatus.SUCCEEDED, 2)


def test_an_execution_out_of_attempts_is_failed_with_its_reason(execution, settings):
    settings.REPORT_EXECUTION_MAX_ATTEMPTS = 3
    _abandon(execution, attempts=3)

    assert report_executions_sweep() == (0, 1)

    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.FAILED
    assert "stopped before it finished" in execution.failure_reason
    assert not report_execution_run(execution_id=str(execution.pk))


def test_a_live_lease_is_left_alone(execution):
    ReportExecution.objects.filter(pk=execution.pk).update(
        status=ExecutionStatus.PROCESSING, attempt_count=1, leased_until=timezone.now() + timedelta(minutes=5)
    )
    assert report_executions_sweep() == (0, 0)
    assert not report_execution_run(execution_id=str(execution.pk))


def test_files_are_deleted_after_the_retention(execution, settings):
    settings.REPORT_FILE_RETENTION_DAYS = 30
    report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    assert report_storage().exists(execution.file_name)

    assert report_files_purge_expired(now=timezone.now() + timedelta(days=29), batch_size=10) == 0
    assert report_files_purge_expired(now=timezone.now() + timedelta(days=31), batch_size=10) == 1

    execution.refresh_from_db()
    assert execution.file_deleted_at is not None
    assert not report_storage().exists(execution.file_name)
