"""Issue gift cards in bulk and write their numbers and PINs to a CSV, the only copy there will ever be."""

import time as clock
from datetime import UTC, date, datetime, time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from giftcards.export import ExportError, issued_cards_export
from giftcards.models import IssuedGiftCard
from payments.accounts.selectors import merchant_account_get


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
        parser.add_argument(
            "--inactive",
            action="store_true",
            help="Pre-printed cards: issue them inactive, to be activated by POST /gift-cards/activations.",
        )
        parser.add_argument("--out", required=True, type=Path, help="CSV file to create; must not exist.")

    def handle(self, *args, **options):
        account = merchant_account_get(id=options["merchant_account"])
        if account is None:
            raise CommandError(f"Unknown merchant account '{options['merchant_account']}'.")
        if options["count"] < 1:
            raise CommandError("--count must be at least 1.")
        expires = options["expires"]
        path: Path = options["out"]
        started = clock.monotonic()
        try:
            issued = issued_cards_export(
                path,
                merchant_account=account,
                count=options["count"],
                amount=options["amount"],
                currency=options["currency"],
                expires_at=datetime.combine(expires, time.max, tzinfo=UTC) if expires else None,
                status=IssuedGiftCard.Status.INACTIVE if options["inactive"] else IssuedGiftCard.Status.ACTIVE,
            )
        except ExportError as exc:
            raise CommandError(exc.message) from exc
        elapsed = max(clock.monotonic() - started, 1e-6)
        self.stdout.write(f"Issued {issued} gift cards to {path} ({issued / elapsed:.0f} cards/s).")
