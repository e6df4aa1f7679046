"""Issue gift cards in bulk and write their numbers and PINs to a CSV, the only copy there will ever be."""

import csv
import os
import time as clock
from datetime import UTC, date, datetime, time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from giftcards.services import BULK_SIZE, IssuedCardSecret, giftcard_issue_batch
from payments.errors import DomainError
from payments.selectors import merchant_account_get
from payments.vault import VaultError

CSV_HEADER = ["number", "pin", "balance", "currency", "expiration_date"]


class Command(BaseCommand):
    help = (
        "Issue gift cards of the built-in program and write number, PIN, balance, currency and expiration date "
        "to a new CSV file (mode 0600). Numbers and PINs cannot be recovered afterwards."
    )

    def add_arguments(self, parser):
        parser.add_argument("--merchant-account", required=True, help="Merchant account id.")
        parser.add_argument("--count", required=True, type=int, help="How many cards to issue.")
        parser.add_argument("--amount", required=True, type=int, help="Balance of each card, in minor units.")
        parser.add_argument("--currency", required=True, help="ISO 4217 code, e.g. USD.")
        parser.add_argument(
            "--expires", type=date.fromisoformat, help="YYYY-MM-DD: the last day (UTC) the cards can be used."
        )
        parser.add_argument("--out", required=True, type=Path, help="CSV file to create; must not exist.")

    def handle(self, *args, **options):
        account = merchant_account_get(id=options["merchant_account"])
        if account is None:
            raise CommandError(f"Unknown merchant account '{options['merchant_account']}'.")
        if options["count"] < 1:
            raise CommandError("--count must be at least 1.")
        expires = options["expires"]
        terms = {
            "merchant_account": account,
            "amount": options["amount"],
            "currency": options["currency"],
            "expires_at": datetime.combine(expires, time.max, tzinfo=UTC) if expires else None,
        }
        path: Path = options["out"]
        started = clock.monotonic()
        issued = self._issue_to(path, count=options["count"], terms=terms)
        elapsed = max(clock.monotonic() - started, 1e-6)
        self.stdout.write(f"Issued {issued} gift cards to {path} ({issued / elapsed:.0f} cards/s).")

    def _issue_to(self, path: Path, *, count: int, terms: dict) -> int:
        """Issue in batches, each committed before its rows are written; returns how many were issued."""
        issued = 0
        with _create_private(path) as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(CSV_HEADER)
            try:
                while issued < count:
                    batch = giftcard_issue_batch(count=min(BULK_SIZE, count - issued), **terms)
                    writer.writerows(_row(secret) for secret in batch)
                    handle.flush()
                    issued += len(batch)
            except BaseException as exc:
                if issued == 0:
                    path.unlink()  # a file with only a header would pass for an empty issue
                if not isinstance(exc, DomainError | VaultError):
                    raise
                message = exc.message if isinstance(exc, DomainError) else str(exc)
                if issued:
                    message += f" Stopped after {issued} cards, all written to {path}."
                raise CommandError(message) from exc
        return issued


def _create_private(path: Path):
    """A new file readable by its owner only, created before any number is written to it."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise CommandError(f"{path} exists; refusing to overwrite it.") from None
    except OSError as exc:
        raise CommandError(f"Cannot create {path}: {exc.strerror}.") from exc
    return os.fdopen(descriptor, "w", newline="", encoding="ascii")


def _row(secret: IssuedCardSecret) -> list:
    card = secret.card
    expiration = card.expires_at.date().isoformat() if card.expires_at else ""
    return [secret.number, secret.pin, card.balance, card.currency, expiration]
