"""A report execution whose worker is killed (SIGKILL) in the middle of writing its file is given to another worker
when its lease runs out and finishes there once, with every row; out of attempts, it is failed with its reason."""

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from reports.models import ExecutionStatus, ReportExecution
from reports.tests.factories import ReportFactory
from tests.servers import ROOT, database_url, stop_process
from transactions.models import Transaction
from transactions.tests.factories import TransactionFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# Enough rows, each with every field, that a worker is still writing the file when the test's poll (every 50 ms)
# sees it start and kills it: at 5,000 rows of two fields a fast machine wrote the whole file between two polls.
ROWS = 20_000


@pytest.fixture
def environment(settings, tmp_path):
    return {
        **{name: value for name, value in os.environ.items() if not name.startswith("GR4VY_")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(connection.settings_dict),
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
        "REPORTS_STORAGE_OPTIONS": f'{{"location": "{tmp_path}"}}',
        # A dead worker's execution is free again 4 s after its last renewal; the sweep looks every second.
        "REPORT_EXECUTION_LEASE_SECONDS": "4",
        "REPORT_SWEEP_EVERY_SECONDS": "1",
        "REPORT_EXECUTION_SWEEP_GRACE_SECONDS": "0.5",
        "WORKER_POLL_SECONDS": "0.05",
        # One task loop per worker: with several, the sweep on another loop may take a lease this short from an
        # execution that a loaded machine slowed between renewals, and the attempt counts below would be three.
        "WORKER_CONCURRENCY": "1",
        "LOG_LEVEL": "WARNING",
    }


def _worker(env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "run_worker", "--no-startup-delay", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def _execution(merchant_account) -> ReportExecution:
    model = TransactionFactory(merchant_account=merchant_account, captured=True)
    values = {f.attname: getattr(model, f.attname) for f in Transaction._meta.concrete_fields if not f.primary_key}
    now = timezone.now()
    Transaction.objects.bulk_create(
        Transaction(**{**values, "created_at": now - timedelta(seconds=n)}) for n in range(1, ROWS)
    )
    report = ReportFactory(merchant_account=merchant_account, params={"fields": None, "filters": {}})
    execution = ReportExecution.objects.create(report=report, reference_timestamp=now, reference_timezone="UTC")
    from reports.services.executions import run_report_execution

    run_report_execution.enqueue(str(execution.pk))
    return execution


def _status(execution: ReportExecution) -> str:
    execution.refresh_from_db()
    return execution.status


def _killed_while_processing(execution: ReportExecution, env: dict) -> None:
    first = _worker(env)
    try:
        _wait_for(lambda: _status(execution) == ExecutionStatus.PROCESSING, 60, "the first worker to start it")
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        stop_process(first)
    assert _status(execution) == ExecutionStatus.PROCESSING  # killed mid-file: nothing recorded it as done


def test_a_killed_workers_execution_finishes_on_another_worker_once(environment, merchant_account, tmp_path):
    execution = _execution(merchant_account)
    _killed_while_processing(execution, {**environment, "REPORT_EXECUTION_MAX_ATTEMPTS": "3"})

    second = _worker({**environment, "REPORT_EXECUTION_MAX_ATTEMPTS": "3"})
    try:
        _wait_for(lambda: _status(execution) == ExecutionStatus.SUCCEEDED, 240, "the execution to finish elsewhere")
    finally:
        stop_process(second)
    execution.refresh_from_db()
    assert (execution.attempt_count, execution.row_count) == (2, ROWS)
    assert len(list(tmp_path.rglob("*.csv"))) == 1
    with open(tmp_path / execution.file_name, encoding="utf-8") as handle:
        assert sum(1 for _ in handle) == ROWS + 1


def test_out_of_attempts_it_is_failed_with_its_reason(environment, merchant_account):
    execution = _execution(merchant_account)
    env = {**environment, "REPORT_EXECUTION_MAX_ATTEMPTS": "1"}
    _killed_while_processing(execution, env)

    sweeper = _worker(env)
    try:
        _wait_for(lambda: _status(execution) == ExecutionStatus.FAILED, 60, "the sweep to fail it")
    finally:
        stop_process(sweeper)
    execution.refresh_from_db()
    assert execution.attempt_count == 1
    assert "stopped before it finished" in execution.failure_reason
    assert settings.REPORT_EXECUTION_MAX_ATTEMPTS >= 1
