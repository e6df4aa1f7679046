from typing import Any

from django.conf import settings
from django_tasks_db.management.commands import db_worker

from payments.jobs.clock import clock_start
from payments.jobs.schedule import scheduled_jobs


class Command(db_worker.Command):
    help = (
        "Run a background worker: django-tasks' database worker (webhook deliveries, scheduled jobs) and the "
        "clock that enqueues SCHEDULED_JOBS. Run as many as you like, on as many hosts as you like."
    )

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.set_defaults(interval=settings.WORKER_POLL_SECONDS, reload=False)
        parser.add_argument(
            "--no-clock", action="store_false", dest="clock", help="Run tasks only; enqueue no scheduled jobs."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options.pop("clock"):
            clock_start()
            for job in scheduled_jobs().values():
                self.stdout.write(f"Scheduled: {job.name} every {job.every:g} s ({job.call})")
        super().handle(*args, **options)
