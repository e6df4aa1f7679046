"""Reports: created and updated through the API or the support desk, each checked against its model."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from payments.accounts.models import MerchantAccount
from payments.errors import DomainError
from payments.partial import UNCHANGED, Unchanged
from reports import schedules
from reports.models import CreatorType, FileFormat, Report, ReportExecution, ReportSchedule
from reports.params import params_check
from reports.services.executions import report_execution_create
from reports.sources import REFUSED, ParamsError, Run, source_named


class ReportRefused(DomainError):
    """The report asks for a model, field, filter, schedule or timezone this server does not offer."""


@dataclass(frozen=True)
class Creator:
    """Who made a report: an API key (its id and key id) or a staff user."""

    type: CreatorType
    id: uuid.UUID | None
    display_name: str | None


def report_timezone(name: str) -> Any:
    try:
        return schedules.timezone_named(name)
    except schedules.UnknownTimezone:
        raise ReportRefused(
            f"Unknown timezone `{name}`: give an IANA timezone name such as Europe/London.",
            pointer="/schedule_timezone",
        ) from None


def report_spec_check(
    *, merchant_account: MerchantAccount, model: str, params: object, timezone_name: str, now: datetime
) -> dict[str, Any]:
    """The params as stored when `model` offers everything they ask for; ReportRefused naming what it lacks."""
    source = source_named(model)
    if source is None:
        reason = REFUSED.get(model, "")
        raise ReportRefused(
            f"The `{model}` report model is not supported by this server. {reason}".strip(), pointer="/spec/model"
        )
    run = Run(merchant_account=merchant_account, reference=now, zone=report_timezone(timezone_name))
    try:
        return params_check(source, params, run)
    except ParamsError as exc:
        raise ReportRefused(exc.message, pointer=f"/spec/params{exc.pointer}") from None


def _next_execution_at(report: Report, now: datetime) -> datetime | None:
    if not report.schedule_enabled or report.schedule == ReportSchedule.ONCE:
        return None
    return schedules.first_run_after(report.schedule, now, report_timezone(report.schedule_timezone))


@transaction.atomic
def report_create(
    *,
    merchant_account: MerchantAccount,
    name: str,
    description: str | None,
    schedule: str,
    schedule_enabled: bool,
    schedule_timezone: str,
    model: str,
    params: object,
    creator: Creator,
    file_format: str = FileFormat.CSV,
    now: datetime | None = None,
) -> Report:
    """A report checked against its model; a `once` report that is enabled runs now, a scheduled one at the end of
    its current period in its timezone."""
    now = now or timezone.now()
    stored = report_spec_check(
        merchant_account=merchant_account, model=model, params=params, timezone_name=schedule_timezone, now=now
    )
    report = Report(
        merchant_account=merchant_account,
        name=name,
        description=description,
        schedule=schedule,
        schedule_enabled=schedule_enabled,
        schedule_timezone=schedule_timezone,
        model=model,
        params=stored,
        file_format=file_format,
        creator_type=creator.type,
        creator_id=creator.id,
        creator_display_name=creator.display_name,
    )
    report.next_execution_at = _next_execution_at(report, now)
    report.save()
    if schedule == ReportSchedule.ONCE and schedule_enabled:
        report_execution_create(report=report, reference=now)
    return report


@transaction.atomic
def report_update(
    *,
    report: Report,
    name: str | Unchanged = UNCHANGED,
    description: str | Unchanged | None = UNCHANGED,
    schedule_enabled: bool | Unchanged = UNCHANGED,
    now: datetime | None = None,
) -> Report:
    """Rename, describe, or switch the schedule; switching it on starts again from the current period."""
    now = now or timezone.now()
    report = Report.objects.select_for_update().get(pk=report.pk)
    if not isinstance(name, Unchanged):
        report.name = name
    if not isinstance(description, Unchanged):
        report.description = description
    if not isinstance(schedule_enabled, Unchanged) and schedule_enabled != report.schedule_enabled:
        report.schedule_enabled = schedule_enabled
        report.next_execution_at = _next_execution_at(report, now)
    report.save()
    return report


@transaction.atomic
def report_run_now(*, report: Report, now: datetime | None = None) -> ReportExecution:
    """An execution of `report` for now, whatever its schedule (the support desk's "run now")."""
    return report_execution_create(report=report, reference=now or timezone.now())
