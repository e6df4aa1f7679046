from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from payments.accounts.services import merchant_account_create


class Command(BaseCommand):
    help = "Create a merchant account (does nothing if it exists)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("id", help="Slug such as 'default'.")
        parser.add_argument("--display-name", default="")
        parser.add_argument(
            "--allowed-origin",
            action="append",
            default=[],
            dest="allowed_origins",
            help="Browser origin allowed to call the API and frame Secure Fields (repeatable).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        account = merchant_account_create(
            id=options["id"], display_name=options["display_name"], allowed_origins=options["allowed_origins"]
        )
        self.stdout.write(account.id)
