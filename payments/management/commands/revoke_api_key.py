from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.accounts.models import ApiKey
from payments.accounts.services import api_key_revoke


class Command(BaseCommand):
    help = "Revoke an API key by kid; its tokens stop working."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("kid", help="A kid may begin with '-': put '--' before it (revoke_api_key -- -AbC...).")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            api_key_revoke(kid=options["kid"])
        except ApiKey.DoesNotExist as exc:
            raise CommandError(f"No API key with kid '{options['kid']}'.") from exc
        self.stdout.write(f"revoked {options['kid']}")
