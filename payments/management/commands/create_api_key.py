import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.accounts.selectors import merchant_account_get
from payments.accounts.services import api_key_generate


class Command(BaseCommand):
    help = (
        "Generate an EC P-521 key pair with every role (the way in for the first key; make the rest over the API), "
        "store its public half, write the private PEM (mode 0600), print the kid."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--merchant-account", required=True, help="Merchant account id, or 'all'.")
        parser.add_argument("--private-key-out", required=True, type=Path)
        parser.add_argument("--name", default="", help="The name the desk and the audit log show (at most 200).")

    def handle(self, *args: Any, **options: Any) -> None:
        account_id = options["merchant_account"]
        account = None
        if account_id != "all":
            account = merchant_account_get(id=account_id)
            if account is None:
                raise CommandError(f"Unknown merchant account '{account_id}'.")
        path: Path = options["private_key_out"]
        if path.exists():
            raise CommandError(f"{path} exists; refusing to overwrite a private key.")
        if len(options["name"]) > 200:
            raise CommandError("--name takes at most 200 characters.")
        generated = api_key_generate(merchant_account=account, display_name=options["name"])
        write_private_key(path, generated.private_key_pem)
        self.stdout.write(generated.api_key.kid)


def write_private_key(path: Path, pem: str) -> None:
    """Create the file readable by its owner only, before any key byte is written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(pem)
