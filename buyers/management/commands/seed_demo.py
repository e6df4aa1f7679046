import sys
import time

from django.core.management.base import BaseCommand, CommandError

from buyers.demo import DEFAULT_BATCH_SIZE, seed_demo_buyers
from payments.selectors import merchant_account_get


class Progress:
    """A one-line `\\r` progress bar on stderr, redrawn in place (only when stderr is a terminal)."""

    WIDTH = 30

    def __init__(self, label: str, stream=sys.stderr) -> None:
        self.label, self.stream = label, stream
        self.started = time.perf_counter()
        self.first: int | None = None
        self.live = stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        if self.first is None:
            self.first = done
        if not self.live:
            return
        filled = self.WIDTH * done // max(total, 1)
        rate = (done - self.first) / max(time.perf_counter() - self.started, 1e-9)
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done:,}/{total:,} {rate:,.0f}/s ")
        self.stream.flush()

    def close(self) -> None:
        if self.live and self.first is not None:
            self.stream.write("\n")


class Command(BaseCommand):
    help = "Seed realistic demo data for one merchant account; resumable and safe to run again."

    def add_arguments(self, parser):
        parser.add_argument("--buyers", type=int, default=0, help="Total demo buyers the account should have.")
        parser.add_argument("--merchant-account", default="default")
        parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
        parser.add_argument(
            "--if-empty", action="store_true", help="Seed nothing if the account already has any buyer (make run)."
        )

    def handle(self, *args, **options):
        account = merchant_account_get(id=options["merchant_account"])
        if account is None:
            raise CommandError(f"No merchant account '{options['merchant_account']}'.")
        if options["buyers"] < 0 or options["batch_size"] < 1:
            raise CommandError("--buyers must be zero or more and --batch-size at least 1.")
        if options["if_empty"] and account.buyers.exists():
            self.stdout.write(f"Merchant account '{account.id}' already has buyers; seeding nothing.")
            return
        self._seed_buyers(account, options["buyers"], options["batch_size"])

    def _seed_buyers(self, account, total: int, batch_size: int) -> None:
        progress = Progress("buyers")
        started = time.perf_counter()
        result = seed_demo_buyers(merchant_account=account, total=total, batch_size=batch_size, on_progress=progress)
        progress.close()
        elapsed = time.perf_counter() - started
        rate = f" in {elapsed:.1f}s ({result.created / elapsed:,.0f}/s)" if result.created else ""
        self.stdout.write(
            f"Buyers: {result.created:,} created{rate}; the account has {result.after:,} demo buyers "
            f"(had {result.before:,})."
        )
