"""The scheduled jobs' table: one row per run claimed."""

from typing import TYPE_CHECKING, Any

from django.db import models
from django_tasks_db.models import DBTaskResult


class ScheduledRun(models.Model):
    """One run of a scheduled job, claimed by whichever worker's clock fires first: the unique (job, slot) pair
    lets every worker on every host run the same schedule while each slot's job is enqueued once."""

    job = models.CharField(max_length=64)
    slot = models.BigIntegerField(help_text="The run's scheduled time, in whole intervals since the epoch.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "slot"], name="scheduled_run_once")]

    def __str__(self) -> str:
        return f"{self.job} #{self.slot}"


if TYPE_CHECKING:
    TaskResultBase = DBTaskResult[Any, Any]  # generic in its stubs only
else:
    TaskResultBase = DBTaskResult


class BackgroundTask(TaskResultBase):
    """The task backend's results as the desk names them: the backend's own model reads "Task Results"."""

    class Meta:
        proxy = True
        verbose_name = "background task"
