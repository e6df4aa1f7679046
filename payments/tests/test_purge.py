"""The purge registry and `manage.py purge_expired`."""

import io
from datetime import datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from payments.ops import purge
from payments.tests.factories import VaultedCardFactory
from payments.vault.models import VaultedCard

pytestmark = pytest.mark.django_db


class FakeJob:
    """Deletes from a list of expiry times, a batch at a time, like a real job deletes rows."""

    def __init__(self, expiries: list[datetime]) -> None:
        self.expiries = expiries
        self.batches: list[int] = []

    def __call__(self, *, now: datetime, batch_size: int) -> int:
        due = [expiry for expiry in self.expiries if expiry <= now][:batch_size]
        for expiry in due:
            self.expiries.remove(expiry)
        self.batches.append(len(due))
        return len(due)


@pytest.fixture
def registered():
    names = []

    def register(name: str, job) -> None:
        purge.register(name, job)
        names.append(name)

    yield register
    for name in names:
        purge.unregister(name)


def test_run_job_repeats_batches_until_one_comes_back_short():
    now = timezone.now()
    job = FakeJob([now - timedelta(seconds=n) for n in range(5)] + [now + timedelta(seconds=1)])
    assert purge.run_job(job, now=now, batch_size=2) == 5
    assert job.batches == [2, 2, 1]
    assert len(job.expiries) == 1


def test_run_job_stops_after_an_exactly_full_last_batch():
    now = timezone.now()
    job = FakeJob([now] * 4)
    assert purge.run_job(job, now=now, batch_size=2) == 4
    assert job.batches == [2, 2, 0]


def test_run_job_refuses_an_empty_batch_size():
    with pytest.raises(ValueError, match="batch_size"):
        purge.run_job(FakeJob([]), now=timezone.now(), batch_size=0)


def test_apps_register_their_jobs():
    assert {"vaulted-cards", "vaulted-security-codes"} <= set(purge.registered_jobs())


def test_registering_a_name_again_replaces_the_job(registered):
    first, second = FakeJob([]), FakeJob([])
    registered("fake", first)
    registered("fake", second)
    assert purge.registered_jobs()["fake"] is second


def test_one_failing_job_does_not_stop_the_others(registered):
    now = timezone.now()

    def broken(*, now, batch_size):
        raise RuntimeError("database went away")

    working = FakeJob([now])
    registered("broken", broken)
    registered("working", working)
    results = {result.name: result for result in purge.purge_all(now=now, only={"broken", "working"})}
    assert isinstance(results["broken"].error, RuntimeError)
    assert (results["working"].purged, results["working"].error) == (1, None)


def test_command_runs_every_job_and_reports_counts(merchant_account):
    now = timezone.now()
    VaultedCardFactory(expires_at=now - timedelta(minutes=1))
    VaultedCardFactory(expires_at=now + timedelta(minutes=5))
    out = io.StringIO()
    call_command("purge_expired", "--batch-size", "1", stdout=out)
    assert "vaulted-cards: 1 deleted" in out.getvalue()
    assert VaultedCard.objects.count() == 1
    # Running again (cron) finds nothing left to do.
    out = io.StringIO()
    call_command("purge_expired", stdout=out)
    assert "vaulted-cards: 0 deleted" in out.getvalue()


def test_command_lists_and_selects_jobs(registered):
    job = FakeJob([timezone.now() - timedelta(seconds=1)])
    registered("fake", job)
    out = io.StringIO()
    call_command("purge_expired", "--list", stdout=out)
    assert "fake" in out.getvalue().split()
    assert job.batches == []
    out = io.StringIO()
    call_command("purge_expired", "--only", "fake", stdout=out)
    assert out.getvalue().strip() == "fake: 1 deleted"


def test_command_refuses_unknown_jobs_and_fails_on_a_broken_one(registered):
    with pytest.raises(CommandError, match="Unknown purge job"):
        call_command("purge_expired", "--only", "nope", stdout=io.StringIO())

    def broken(*, now, batch_size):
        raise RuntimeError("boom")

    registered("broken", broken)
    with pytest.raises(CommandError, match="broken"):
        call_command("purge_expired", "--only", "broken", stdout=io.StringIO())
