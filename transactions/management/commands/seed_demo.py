"""`manage.py seed_demo`: demo buyers, gift cards and transactions for one merchant account.

It lives in the transactions app because that app already depends on the other two: each resource's
demo data is made by its own app (`buyers.demo`, `transactions.demo`, the gift card program's
`issue_gift_cards`), and this command only puts them together.
"""

import sys
import time
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from buyers.demo import DEFAULT_BATCH_SIZE, seed_demo_buyers
from giftcards.models import IssuedGiftCard
from payments.selectors import merchant_account_get
from payments.vault import VaultError
from transactions.demo import seed_demo_transactions

DEMO_GIFT_CARD_BALANCE = 10_000  # minor units
DEMO_GIFT_CARD_CURRENCY = "USD"


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
        parser.add_argument(
            "--gift-cards", type=int, default=0, help="Total cards the account's gift card program should have."
        )
        parser.add_argument(
            "--gift-cards-out",
            type=Path,
            default=Path(".local/demo-gift-cards.csv"),
            help="New CSV (mode 0600) for the numbers and PINs of the cards issued by this run.",
        )
        parser.add_argument(
            "--transactions", type=int, default=0, help="Total demo transactions the account should have."
        )
        parser.add_argument("--merchant-account", default="default")
        parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
        parser.add_argument(
            "--if-empty", action="store_true", help="Seed nothing if the account already has any buyer (make run)."
        )

    def handle(self, *args, **options):
        account = merchant_account_get(id=options["merchant_account"])
        if account is None:
            raise CommandError(f"No merchant account '{options['merchant_account']}'.")
        for name in ("buyers", "gift_cards", "transactions"):
            if options[name] < 0:
                raise CommandError(f"--{name.replace('_', '-')} must be zero or more.")
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1.")
        if options["if_empty"] and account.buyers.exists():
            self.stdout.write(f"Merchant account '{account.id}' already has buyers; seeding nothing.")
            return
        if options["buyers"]:
            self._seed_buyers(account, options["buyers"], options["batch_size"])
        try:
            if options["gift_cards"]:
                self._seed_gift_cards(account, options["gift_cards"], options["gift_cards_out"])
            if options["transactions"]:
                self._seed_transactions(account, options["transactions"])
        except VaultError as exc:  # card numbers and PINs are sealed and hashed with keys from the environment
            raise CommandError(f"{exc} (make run writes development keys to .local/env)") from exc

    def _seed_buyers(self, account, total: int, batch_size: int) -> None:
        progress = Progress("buyers")
        started = time.perf_counter()
        result = seed_demo_buyers(merchant_account=account, total=total, batch_size=batch_size, on_progress=progress)
        progress.close()
        self._report("Buyers", result.before, result.after, started)

    def _seed_gift_cards(self, account, total: int, out: Path) -> None:
        before = IssuedGiftCard.objects.filter(service__merchant_account=account).count()
        if before < total:
            if out.exists():  # each run's secrets go to a file of their own; never overwrite one
                out = out.with_name(f"{out.stem}-from-{before + 1}{out.suffix}")
            out.parent.mkdir(parents=True, exist_ok=True)
            call_command(
                "issue_gift_cards",
                merchant_account=account.id,
                count=total - before,
                amount=DEMO_GIFT_CARD_BALANCE,
                currency=DEMO_GIFT_CARD_CURRENCY,
                out=out,
                stdout=self.stdout,
            )
        after = IssuedGiftCard.objects.filter(service__merchant_account=account).count()
        self.stdout.write(f"Gift cards: {after - before:,} issued; the program has {after:,} (had {before:,}).")

    def _seed_transactions(self, account, total: int) -> None:
        progress = Progress("transactions")
        started = time.perf_counter()
        before, after = seed_demo_transactions(merchant_account=account, total=total, on_progress=progress)
        progress.close()
        self._report("Transactions", before, after, started)

    def _report(self, label: str, before: int, after: int, started: float) -> None:
        elapsed = time.perf_counter() - started
        created = after - before
        rate = f" in {elapsed:.1f}s ({created / elapsed:,.0f}/s)" if created else ""
        has = f"the account has {after:,} demo {label.lower()} (had {before:,})"
        self.stdout.write(f"{label}: {created:,} created{rate}; {has}.")
