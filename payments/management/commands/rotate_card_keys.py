from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.management.arguments import positive_int
from payments.vault import crypto, rotation
from payments.vault.services import vaulted_cards_count_stale, vaulted_cards_rotate_batch


class Command(BaseCommand):
    help = (
        "Re-encrypt every vaulted card, and every other sealed value apps register (payment service credentials), "
        "that is not sealed with the current key (the first entry of CARD_ENCRYPTION_KEYS), batch by batch. Safe to "
        "stop and run again; a second run has nothing to do."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=positive_int, default=500)

    def handle(self, *args: Any, **options: Any) -> None:
        current = crypto.current_key_id()
        kinds = [rotation.SealedKind("card", vaulted_cards_rotate_batch, vaulted_cards_count_stale)]
        kinds += rotation.registered()
        problems = []
        for kind in kinds:
            problems += self._rotate(kind, current, options["batch_size"])
        if problems:
            raise CommandError(" ".join(problems))
        self.stdout.write("Every card uses the current key; older keys may now be removed from CARD_ENCRYPTION_KEYS.")

    def _rotate(self, kind: rotation.SealedKind, current: str, batch_size: int) -> list[str]:
        label = "card(s)" if kind.name == "card" else f"{kind.name} row(s)"
        rotated, failed, after = 0, [], None
        while True:
            batch = kind.rotate_batch(batch_size=batch_size, after=after)
            if batch.last_id is None:
                break
            rotated += batch.rotated
            failed += batch.failed
            after = batch.last_id
            self.stdout.write(f"re-encrypted {rotated} {label} so far")
        remaining = kind.count_stale()
        self.stdout.write(f"{rotated} {label} re-encrypted with key {current!r}; {remaining} left under other keys.")
        problems = []
        if failed:
            shown = ", ".join(str(row_id) for row_id in failed[:10])
            problems.append(
                f"{len(failed)} {label} could not be decrypted with the configured keys (first: {shown}). "
                "Add the keys they were sealed with to CARD_ENCRYPTION_KEYS and run again."
            )
        if remaining:
            problems.append(f"{remaining} {label} were locked by requests in flight; run the command again.")
        return problems
