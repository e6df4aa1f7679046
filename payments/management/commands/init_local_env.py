import secrets
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from payments.vault.crypto import generate_key_spec


class Command(BaseCommand):
    help = "Write development secrets (Django secret key, card encryption and fingerprint keys) to a local env file."
    # It writes the keys the start checks would refuse to run without: it must run while they are malformed.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--path", type=Path, default=Path(".local/env"))

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        if path.exists():
            self.stdout.write(f"{path} exists; keeping it.")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [
            f"DJANGO_SECRET_KEY={secrets.token_urlsafe(50)}",
            f"CARD_ENCRYPTION_KEYS={generate_key_spec()}",
            f"CARD_FINGERPRINT_KEY={secrets.token_urlsafe(32)}",
        ]
        path.write_text("\n".join(lines) + "\n")
        path.chmod(0o600)
        self.stdout.write(f"wrote {path}")
