"""Schedules in the report's timezone, across daylight saving changes, and the scheduler making executions."""

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from reports import schedules
from reports.models import CreatorType, ExecutionStatus, ReportExecution
from reports.services.executions import report_execution_run, reports_schedule_due
from reports.services.reports import Creator, report_create

LONDON = ZoneInfo("Europe/London")
NEW_YORK = ZoneInfo("America/New_York")


def _runs(schedule, start, zone, count):
    run = schedules.first_run_after(schedule, start, zone)
    runs = [run]
    for _ in range(count - 1):
        run = schedules.next_run(schedule, run, zone)
        runs.append(run)
    return runs


def test_daily_runs_at_local_midnight_across_the_spring_change():
    # Europe/London moves from GMT to BST at 01:00 UTC on 29 March 2026.
    runs = _runs("daily", datetime(2026, 3, 27, 12, tzinfo=UTC), LONDON, 4)

    assert [run.astimezone(LONDON).time().hour for run in runs] == [0, 0, 0, 0]
    assert runs == [
        datetime(2026, 3, 28, 0, tzinfo=UTC),
        datetime(2026, 3, 29, 0, tzinfo=UTC),
        datetime(2026, 3, 29, 23, tzinfo=UTC),  # 23 hours later: the day of the change is short
        datetime(2026, 3, 30, 23, tzinfo=UTC),
    ]


def test_daily_runs_across_the_autumn_change_are_25_hours_apart():
    runs = _runs("daily", datetime(2026, 10, 31, 12, tzinfo=UTC), NEW_YORK, 3)
    assert [b - a for a, b in itertools.pairwise(runs)] == [timedelta(hours=25), timedelta(hours=24)]
    assert all(run.astimezone(NEW_YORK).hour == 0 for run in runs)


def test_weekly_runs_on_monday_and_monthly_on_the_first():
    weekly = _runs("weekly", datetime(2026, 3, 25, tzinfo=UTC), LONDON, 2)
    assert [run.astimezone(LONDON).date().isoformat() for run in weekly] == ["2026-03-30", "2026-04-06"]
    monthly = _runs("monthly", datetime(2026, 11, 26, tzinfo=UTC), NEW_YORK, 3)
    assert [run.astimezone(NEW_YORK).date().isoformat() for run in monthly] == [
        "2026-12-01",
        "2027-01-01",
        "2027-02-01",
    ]


def test_a_run_reports_the_period_that_ended():
    run_at = datetime(2026, 3, 29, 23, tzinfo=UTC)  # midnight of 30 March in London
    reference = schedules.run_reference("daily", run_at, LONDON)
    assert reference == datetime(2026, 3, 29, 0, tzinfo=UTC)  # the (short) 29th began at GMT midnight
    assert schedules.placeholder_value("day_end", reference, LONDON) == run_at - timedelta(microseconds=1)


def _daily(merchant_account, zone, params, *, now):
    return report_create(
        merchant_account=merchant_account,
        name="Daily",
        description=None,
        schedule="daily",
        schedule_enabled=True,
        schedule_timezone=zone,
        model="transactions",
        params=params,
        creator=Creator(type=CreatorType.USER, id=None, display_name=None),
        now=now,
    )


@pytest.mark.django_db
def test_a_daily_report_runs_at_its_time(merchant_account):
    created_at = datetime(2026, 3, 28, 15, tzinfo=UTC)
    report = _daily(
        merchant_account,
        "Europe/London",
        {"filters": {"created_at": {"start": "day_start", "end": "day_end"}}},
        now=created_at,
    )
    assert report.next_execution_at == datetime(2026, 3, 29, 0, tzinfo=UTC)

    assert reports_schedule_due(now=datetime(2026, 3, 28, 23, 59, tzinfo=UTC)) == 0  # not yet
    assert reports_schedule_due(now=datetime(2026, 3, 29, 0, 0, 30, tzinfo=UTC)) == 1
    assert reports_schedule_due(now=datetime(2026, 3, 29, 0, 1, tzinfo=UTC)) == 0  # once per period

    execution = ReportExecution.objects.get()
    assert execution.reference_timestamp == datetime(2026, 3, 28, 0, tzinfo=UTC)
    assert execution.reference_timezone == "Europe/London"
    report.refresh_from_db()
    assert report.next_execution_at == datetime(2026, 3, 29, 23, tzinfo=UTC)  # local midnight after the change
    assert report_execution_run(execution_id=str(execution.pk))
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.SUCCEEDED


@pytest.mark.django_db
def test_missed_periods_are_caught_up_one_by_one(merchant_account):
    report = _daily(merchant_account, "Etc/UTC", {}, now=datetime(2026, 1, 1, 12, tzinfo=UTC))
    later = datetime(2026, 1, 4, 12, tzinfo=UTC)
    made = sum(reports_schedule_due(now=later) for _ in range(5))

    assert made == 3
    assert sorted(e.reference_timestamp.day for e in ReportExecution.objects.filter(report=report)) == [1, 2, 3]
