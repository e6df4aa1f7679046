import signal
import sys
import threading
from types import FrameType
from typing import Any

from django.conf import settings
from django.db import connections
from django_tasks_db.management.commands import db_worker

from payments.jobs.clock import clock_start
from payments.jobs.schedule import scheduled_jobs


class Command(db_worker.Command):
    help = (
        "Run a background worker: django-tasks' database worker (webhook deliveries, scheduled jobs) and the "
        "clock that enqueues SCHEDULED_JOBS. Run as many as you like, on as many hosts as you like; each runs "
        "up to --concurrency tasks at once."
    )

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        parser.set_defaults(interval=settings.WORKER_POLL_SECONDS, reload=False)
        parser.add_argument(
            "--no-clock", action="store_false", dest="clock", help="Run tasks only; enqueue no scheduled jobs."
        )
        parser.add_argument(
            "--concurrency",
            type=db_worker.valid_max_tasks,
            default=settings.WORKER_CONCURRENCY,
            help="Tasks this process runs at once, each on a thread and database connection of its own "
            "(default: WORKER_CONCURRENCY, %(default)s).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options.pop("clock"):
            clock_start()
            for job in scheduled_jobs().values():
                self.stdout.write(f"Scheduled: {job.name} every {job.every:g} s ({job.call})")
        concurrency = options.pop("concurrency")
        if concurrency == 1:
            super().handle(*args, **options)
            return
        self.configure_logging(options["verbosity"])
        _run_loops(_loops(concurrency, options))


def _loops(concurrency: int, options: dict[str, Any]) -> list[db_worker.Worker]:
    """`concurrency` task loops, each claiming its own tasks (SELECT ... FOR UPDATE SKIP LOCKED) under an id of
    its own, so a delivery that waits on its receiver holds one loop, not the process."""
    queue_names = options["queue_name"].split(",")
    excluded = options["exclude_queues"].split(",") if options["exclude_queues"] else []
    return [
        db_worker.Worker(
            queue_names=queue_names,
            interval=options["interval"],
            batch=options["batch"],
            backend_name=options["backend_name"],
            startup_delay=options["startup_delay"],
            max_tasks=options["max_tasks"],
            worker_id=f"{options['worker_id'][:58]}-{number}",
            excluded_queue_names=excluded,
        )
        for number in range(concurrency)
    ]


def _run_loops(loops: list[db_worker.Worker]) -> None:
    """Run every loop on a thread of its own until a signal stops them: the first SIGINT/SIGTERM lets each loop
    finish the task it is running (a delivery's outcome is recorded), a second one exits at once (the leases of
    what was being sent run out and the sweep hands those deliveries on)."""

    def stop(signum: int, frame: FrameType | None) -> None:
        if not all(loop.running for loop in loops):
            sys.exit(1)
        for loop in loops:
            loop.running = False

    for each in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(each, stop)
    failed: list[BaseException] = []
    threads = [threading.Thread(target=_run_loop, args=(loop, loops, failed), daemon=True) for loop in loops]
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():
            thread.join(timeout=0.5)  # wakes up for the signal handlers, which run on this thread
    if failed:
        raise failed[0]


def _run_loop(loop: db_worker.Worker, loops: list[db_worker.Worker], failed: list[BaseException]) -> None:
    """One loop; an error that ends it (the database gone) stops the others too, and the process exits with it
    as a single loop's worker does, for its supervisor to start it again."""
    try:
        loop.run()
    except BaseException as exc:
        failed.append(exc)
        for each in loops:
            each.running = False
    finally:
        connections.close_all()  # this thread's own connections
