import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.accounts.keys import InvalidKeyError, mint_token


class Command(BaseCommand):
    help = "Print a bearer token signed with a private key, built exactly as the official SDK builds one."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--private-key", required=True, type=Path)
        parser.add_argument("--scopes", nargs="*", default=None, help="Default: *.read *.write")
        parser.add_argument("--expires-in", type=int, default=3600)
        parser.add_argument("--embed", default=None, help='JSON object pinned by an embed token, e.g. {"amount":1299}')
        parser.add_argument("--checkout-session-id", default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            embed = json.loads(options["embed"]) if options["embed"] else None
            token = mint_token(
                options["private_key"].read_text(),
                scopes=options["scopes"],
                expires_in=options["expires_in"],
                embed=embed,
                checkout_session_id=options["checkout_session_id"],
            )
        except (OSError, ValueError, InvalidKeyError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(token)
