from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.management.arguments import positive_int
from transactions.services.recovery import transactions_recover_pending


class Command(BaseCommand):
    help = (
        "Resolve transactions left pending by a crash: every transaction pending for longer than "
        "PENDING_TRANSACTION_RECOVERY_SECONDS is synced with the processor (POST /transactions/{id}/sync), in "
        "batches until none is left. Safe to run from cron, also while another run is going."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=positive_int, default=100)

    def handle(self, *args: Any, **options: Any) -> None:
        batch_size = options["batch_size"]
        total, failed = 0, []
        while True:
            recovery = transactions_recover_pending(batch_size=batch_size)
            for txn in recovery.resolved:
                self.stdout.write(f"{txn.pk}: {txn.status}")
            total += len(recovery.resolved)
            failed += recovery.failed
            # A full batch with no failure may have more behind it; a failure would be picked up again at once.
            if recovery.failed or len(recovery.resolved) < batch_size:
                break
        age = settings.PENDING_TRANSACTION_RECOVERY_SECONDS
        self.stdout.write(f"{total} transaction(s) pending for more than {age}s resolved")
        if failed:
            raise CommandError(f"{len(failed)} transaction(s) could not be synced (see the log); the next run retries.")
