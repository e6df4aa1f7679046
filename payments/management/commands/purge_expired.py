from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from payments.management.arguments import positive_int
from payments.ops import purge


class Command(BaseCommand):
    help = (
        "Delete expired data (checkout sessions and their cards, security codes, idempotency records, ...) in "
        "batches. Safe to run from cron, also while another run is still going."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=positive_int, default=purge.DEFAULT_BATCH_SIZE)
        parser.add_argument(
            "--only", action="append", metavar="JOB", help="Run only this job (repeatable); see --list."
        )
        parser.add_argument("--list", action="store_true", help="Print the registered jobs and exit.")

    def handle(self, *args: Any, **options: Any) -> None:
        jobs = purge.registered_jobs()
        if options["list"]:
            for name in jobs:
                self.stdout.write(name)
            return
        only = set(options["only"]) if options["only"] else None
        unknown = sorted((only or set()) - set(jobs))
        if unknown:
            raise CommandError(f"Unknown purge job(s): {', '.join(unknown)}. Known: {', '.join(jobs)}.")
        failed = []
        for result in purge.purge_all(now=timezone.now(), batch_size=options["batch_size"], only=only):
            self.stdout.write(f"{result.name}: {result.purged} deleted")
            if result.error is not None:
                failed.append(result.name)
        if failed:
            raise CommandError(f"Purge failed for: {', '.join(failed)} (see the log); the next run resumes them.")
