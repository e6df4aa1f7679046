from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.jobs.tasks import run_scheduled_job
from settlements.services import Outcome
from settlements.sources import settlement_sources, settlements_ingest


class Command(BaseCommand):
    help = (
        "Ingest the processors' new settlement records now (what the 'ingest-settlements' scheduled job does), or "
        "--enqueue it for the background worker. Safe to run while another ingestion runs: a file is ingested once."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--source",
            action="append",
            choices=settlement_sources(),
            help="Only this source, a processor's id (repeatable).",
        )
        parser.add_argument("--enqueue", action="store_true", help="Queue the scheduled job for the worker instead.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["enqueue"]:
            if options["source"]:
                raise CommandError("--enqueue runs every source, as the schedule does: leave out --source.")
            run_scheduled_job.enqueue("ingest-settlements")
            self.stdout.write("Queued: the background worker ingests the settlement records.")
            return
        refused = 0
        for source, results in settlements_ingest(sources=options["source"]).items():
            for result in results:
                name = result.file.name if result.file else "-"
                self.stdout.write(
                    f"{source} {name}: {result.outcome}, {result.entries} entries, {result.unmatched} unmatched"
                )
                if result.outcome in (Outcome.REFUSED, Outcome.FAILED):
                    refused += 1
                    self.stderr.write(f"  {result.message}")
        if refused:
            raise CommandError(
                f"{refused} settlement file(s) refused or not read; nothing from them was recorded (see above)."
            )
