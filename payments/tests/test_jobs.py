"""Scheduled jobs: each run claimed once whatever the number of clocks, run through the task engine."""

from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from payments.jobs.models import ScheduledRun
from payments.jobs.schedule import ScheduledJob, scheduled_jobs, scheduled_run_claim
from payments.jobs.tasks import run_scheduled_job
from payments.ops import purge
from payments.rest.models import IdempotencyRecord

pytestmark = pytest.mark.django_db

CALLS = []


def record_call(**kwargs):
    CALLS.append(kwargs)


@pytest.fixture
def job_settings(settings):
    CALLS.clear()
    settings.SCHEDULED_JOBS = {
        "test-job": {"call": "payments.tests.test_jobs.record_call", "kwargs": {"x": 1}, "every_seconds": 60}
    }
    return settings


def test_each_run_is_claimed_once_however_many_clocks_fire(job_settings):
    job = scheduled_jobs()["test-job"]
    at = datetime(2026, 1, 1, 12, 0, 0, 300_000, tzinfo=UTC)  # a clock fires a little after the minute

    claims = [
        scheduled_run_claim(job=job, at=at + timedelta(milliseconds=100 * n), enqueue=lambda name: None)
        for n in range(5)
    ]
    next_minute = scheduled_run_claim(job=job, at=at + timedelta(seconds=60), enqueue=lambda name: None)

    assert claims == [True, False, False, False, False]
    assert next_minute is True
    assert ScheduledRun.objects.count() == 2


def test_a_claimed_run_is_queued_and_runs_the_function(job_settings):
    # What the clock does at each firing (`clock_fire`, which also closes its own thread's connection; the
    # worker processes of tests/test_webhooks_crash.py run it for real).
    claimed = scheduled_run_claim(
        job=scheduled_jobs()["test-job"], at=timezone.now(), enqueue=run_scheduled_job.enqueue
    )
    assert claimed is True
    (queued,) = DBTaskResult.objects.all()
    assert queued.task_path == "payments.jobs.tasks.run_scheduled_job"

    run_scheduled_job.call(*queued.args_kwargs["args"], **queued.args_kwargs["kwargs"])

    assert CALLS == [{"x": 1}]


@pytest.mark.parametrize(
    "entry",
    [{"call": "x.y"}, {"call": "x.y", "every_seconds": 0}, {"every_seconds": 5}, {"call": 3, "every_seconds": 5}],
    ids=["no-interval", "zero-interval", "no-call", "call-not-a-path"],
)
def test_a_malformed_schedule_entry_is_refused(settings, entry):
    settings.SCHEDULED_JOBS = {"bad": entry}

    with pytest.raises(ImproperlyConfigured):
        scheduled_jobs()


def test_the_default_schedule_runs_the_purges_and_the_webhook_sweep():
    jobs = scheduled_jobs()

    assert {"purge-expired", "idempotency-cleanup", "webhook-sweep", "webhook-failure-report"} <= set(jobs)
    for job in jobs.values():
        assert callable(job.function())
    assert jobs["idempotency-cleanup"].kwargs == {"only": ["idempotency-keys"]}
    assert "idempotency-keys" in jobs["purge-expired"].kwargs["exclude"]


def test_scheduled_purges_split_idempotency_records_from_the_rest(merchant_account):
    IdempotencyRecord.objects.create(
        merchant_account=merchant_account, key="k", fingerprint="f", expires_at=timezone.now() - timedelta(seconds=1)
    )

    others = purge.purge_registered(exclude=["idempotency-keys"])
    assert "idempotency-keys" not in others
    assert IdempotencyRecord.objects.exists()

    assert purge.purge_registered(only=["idempotency-keys"]) == {"idempotency-keys": 1}
    assert not IdempotencyRecord.objects.exists()


def test_slots_line_up_on_whole_intervals():
    job = ScheduledJob(name="j", call="x", every=300)

    assert job.slot(datetime(2026, 1, 1, 0, 5, 0, 400_000, tzinfo=UTC)) == job.slot(
        datetime(2026, 1, 1, 0, 4, 59, 700_000, tzinfo=UTC)
    )
