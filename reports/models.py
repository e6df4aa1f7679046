"""A merchant account's reports (what to export and when) and their executions (one run, one file)."""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q

from payments.accounts.models import MerchantAccount
from payments.json_column import JSONField
from payments.timestamped import TimestampedModel


class ReportSchedule(models.TextChoices):
    """Upstream's `ReportSchedule`: when a report runs, in its own timezone (docs/reports.md)."""

    ONCE = "once"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"


class CreatorType(models.TextChoices):
    """Upstream's `ReportCreatorType`: a staff user (the support desk) or an API key."""

    USER = "user"
    PRIVATE_KEY = "private_key", "Private key"


class ExecutionStatus(models.TextChoices):
    """Upstream's `ReportExecutionStatus`; this server never answers `dispatched` (it has no separate dispatcher)."""

    PENDING = "pending"
    PROCESSING = "processing"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class FileFormat(models.TextChoices):
    CSV = "csv"
    XLSX = "xlsx"


class Report(TimestampedModel):
    """What to export (a model, its fields and filters) and when (a schedule in a timezone)."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.CASCADE, related_name="reports", db_index=False
    )
    name = models.CharField(max_length=100)
    description = models.CharField(max_length=1000, null=True, blank=True)
    creator_id = models.UUIDField(null=True, blank=True)
    creator_display_name = models.CharField(max_length=1000, null=True, blank=True)
    creator_type = models.CharField(max_length=16, choices=CreatorType.choices, null=True, blank=True)
    schedule = models.CharField(max_length=16, choices=ReportSchedule.choices)
    schedule_enabled = models.BooleanField()
    schedule_timezone = models.CharField(max_length=64, default="Etc/UTC")
    model = models.CharField(max_length=32)
    params = JSONField(default=dict)
    file_format = models.CharField(max_length=8, choices=FileFormat.choices, default=FileFormat.CSV)
    # When the scheduler makes the next execution; null when nothing is scheduled (once, or disabled).
    next_execution_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="report_account_page"),
            models.Index(fields=["next_execution_at"], name="report_due", condition=Q(next_execution_at__isnull=False)),
        ]
        permissions = [("run_report", "Can run a report and download its files")]

    def __str__(self) -> str:
        return self.name


class ReportExecution(TimestampedModel):
    """One run of a report: its reference time (what placeholders and the schedule's period resolve against), its
    state on the job engine, and the file it made (kept through Django's storage API until the retention ends)."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    report = models.ForeignKey(Report, on_delete=models.CASCADE, related_name="executions", db_index=False)
    status = models.CharField(max_length=16, choices=ExecutionStatus.choices, default=ExecutionStatus.PENDING)
    reference_timestamp = models.DateTimeField()
    reference_timezone = models.CharField(max_length=64)
    # The running attempt's lease: a worker that dies leaves it to run out, and the sweep tries again or fails it.
    attempt_count = models.PositiveSmallIntegerField(default=0)
    leased_until = models.DateTimeField(null=True, blank=True)
    lease_token = models.UUIDField(null=True, blank=True)
    leased_by = models.CharField(max_length=255, blank=True, default="")
    file_name = models.CharField(max_length=255, blank=True, default="", help_text="Path in the reports storage.")
    file_format = models.CharField(max_length=8, choices=FileFormat.choices, default=FileFormat.CSV)
    file_size = models.BigIntegerField(null=True, blank=True)
    row_count = models.BigIntegerField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    file_deleted_at = models.DateTimeField(null=True, blank=True)
    # Why it failed, for the operator (never a database row or a stack trace).
    failure_reason = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        constraints = [
            # One execution per scheduled period: two schedulers never make the same run twice.
            models.UniqueConstraint(fields=["report", "reference_timestamp"], name="report_execution_once_per_slot")
        ]
        indexes = [
            models.Index(fields=["report", "-created_at", "-id"], name="report_execution_page"),
            models.Index(fields=["status", "updated_at"], name="report_execution_state"),
        ]

    def __str__(self) -> str:
        return f"{self.report} @ {self.reference_timestamp:%Y-%m-%d %H:%M}"
