"""`manage.py seed_demo`: demo data for one merchant account, from every app that registers a seeder
(`payments.ops.demo`): `--buyers N`, `--gift-cards N`, `--transactions N`, ..."""

import sys
import time
from pathlib import Path
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.accounts.models import MerchantAccount
from payments.accounts.selectors import merchant_account_get
from payments.errors import DomainError
from payments.management.arguments import positive_int
from payments.ops import demo
from payments.vault.crypto import VaultError

DEFAULT_BATCH_SIZE = 5_000


class Progress:
    """A one-line `\\r` progress bar on stderr, redrawn in place (only when stderr is a terminal)."""

    WIDTH = 30

    def __init__(self, label: str, stream: TextIO = sys.stderr) -> None:
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

    def add_arguments(self, parser: CommandParser) -> None:
        for seeder in demo.registered_seeders():
            parser.add_argument(f"--{seeder.option}", dest=seeder.name, type=int, default=0, help=seeder.help)
            if seeder.writes_secrets:
                parser.add_argument(
                    f"--{seeder.option}-out",
                    dest=f"{seeder.name}_out",
                    type=Path,
                    default=Path(f".local/demo-{seeder.option}.csv"),
                    help=f"New file (mode 0600) for the secrets of the {seeder.label} this run creates.",
                )
        parser.add_argument("--merchant-account", default="default")
        parser.add_argument("--batch-size", type=positive_int, default=DEFAULT_BATCH_SIZE)
        parser.add_argument(
            "--if-empty", action="store_true", help="Seed nothing if the account already has any data (make run)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        account = merchant_account_get(id=options["merchant_account"])
        if account is None:
            raise CommandError(f"No merchant account '{options['merchant_account']}'.")
        seeders = demo.registered_seeders()
        for seeder in seeders:
            if options.get(seeder.name, 0) < 0:
                raise CommandError(f"--{seeder.option} must be zero or more.")
        if options["batch_size"] < 1:  # call_command passes values without parsing them
            raise CommandError("--batch-size must be at least 1.")
        if options["if_empty"] and any(seeder.has_data(account) for seeder in seeders):
            self.stdout.write(f"Merchant account '{account.id}' already has data; seeding nothing.")
            return
        try:
            for seeder in seeders:
                if options.get(seeder.name):
                    self._seed(seeder, account, options)
        except VaultError as exc:  # card data is sealed and hashed with keys from the environment
            raise CommandError(f"{exc} (make run writes development keys to .local/env)") from exc
        except DomainError as exc:
            raise CommandError(exc.message) from exc

    def _seed(self, seeder: demo.DemoSeeder, account: MerchantAccount, options: dict[str, Any]) -> None:
        progress = Progress(seeder.label)
        started = time.perf_counter()
        run = demo.DemoRun(
            merchant_account=account,
            total=options[seeder.name],
            batch_size=options["batch_size"],
            on_progress=progress,
            secrets_path=options.get(f"{seeder.name}_out"),
        )
        result = seeder.seed(run)
        progress.close()
        elapsed = time.perf_counter() - started
        rate = f" in {elapsed:.1f}s ({result.created / elapsed:,.0f}/s)" if result.created else ""
        has = f"the account has {result.after:,} demo {seeder.label} (had {result.before:,})"
        note = f" {result.note}" if result.note else ""
        self.stdout.write(f"{seeder.label.capitalize()}: {result.created:,} created{rate}; {has}.{note}")
