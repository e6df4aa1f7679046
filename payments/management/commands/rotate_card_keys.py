from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.management.arguments import positive_int
from payments.vault import crypto
from payments.vault.services import vaulted_cards_count_stale, vaulted_cards_rotate_batch


class Command(BaseCommand):
    help = (
        "Re-encrypt every vaulted card that is not sealed with the current key (the first entry of "
        "CARD_ENCRYPTION_KEYS), batch by batch. Safe to stop and run again; a second run has nothing to do."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=positive_int, default=500)

    def handle(self, *args: Any, **options: Any) -> None:
        current = crypto.current_key_id()
        rotated, failed, after = 0, [], None
        while True:
            batch = vaulted_cards_rotate_batch(batch_size=options["batch_size"], after=after)
            if batch.last_id is None:
                break
            rotated += batch.rotated
            failed += batch.failed
            after = batch.last_id
            self.stdout.write(f"re-encrypted {rotated} card(s) so far")
        remaining = vaulted_cards_count_stale()
        self.stdout.write(f"{rotated} card(s) re-encrypted with key {current!r}; {remaining} left under other keys.")
        if failed:
            shown = ", ".join(str(card_id) for card_id in failed[:10])
            raise CommandError(
                f"{len(failed)} card(s) could not be decrypted with the configured keys (first: {shown}). "
                "Add the keys they were sealed with to CARD_ENCRYPTION_KEYS and run again."
            )
        if remaining:
            raise CommandError(f"{remaining} card(s) were locked by requests in flight; run the command again.")
        self.stdout.write("Every card uses the current key; older keys may now be removed from CARD_ENCRYPTION_KEYS.")
