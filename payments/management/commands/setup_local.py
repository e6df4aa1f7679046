import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.accounts.keys import load_private_pem, mint_token, public_pem
from payments.accounts.models import MerchantAccount
from payments.accounts.services import api_key_generate, api_key_register, merchant_account_create
from payments.management.commands.create_api_key import write_private_key
from payments.ops import demo

ADMIN_USERNAME = "admin"
# Beside the default key: a key for every merchant account, which the merchant-accounts operations need.
ALL_ACCOUNTS_KEY_NAME = "all-accounts-api-key.pem"


class Command(BaseCommand):
    help = "Prepare a local development server: default merchant account, API key, admin login; print a token."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--private-key-out", type=Path, default=Path(".local/default-api-key.pem"))
        parser.add_argument("--port", default="8000")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("setup_local is for development only (DJANGO_DEBUG is false).")
        account = merchant_account_create(
            id="default",
            display_name="Default merchant",
            allowed_origins=[f"http://localhost:{options['port']}", f"http://127.0.0.1:{options['port']}"],
        )
        private_pem = self._api_key(options["private_key_out"], account)
        # The merchant-accounts operations take only a key made for every account (docs/merchant-accounts.md).
        all_accounts_path = options["private_key_out"].with_name(ALL_ACCOUNTS_KEY_NAME)
        self._api_key(all_accounts_path, None)
        call_command("setup_roles", verbosity=0)
        self._admin_login()
        # A little demo data so the first list call shows something; an account with data is left alone.
        local = {seeder.name: seeder.local_total for seeder in demo.registered_seeders() if seeder.local_total}
        call_command("seed_demo", merchant_account=account.id, if_empty=True, stdout=self.stdout, **local)
        token = mint_token(private_pem, scopes=["*.read", "*.write"], expires_in=24 * 3600)
        base = f"http://127.0.0.1:{options['port']}"
        self.stdout.write(
            self.style.SUCCESS("\nReady. A token valid for 24 hours (all scopes, merchant account 'default'):\n")
        )
        self.stdout.write(token)
        self.stdout.write("\nTry:\n")
        self.stdout.write(f'curl -s -H "Authorization: Bearer {token}" "{base}/buyers?limit=5"\n')
        self.stdout.write(
            f"Mint more tokens: .venv/bin/python manage.py issue_token --private-key {options['private_key_out']}"
        )
        self.stdout.write(
            "Create, list and rename merchant accounts (/merchant-accounts) with a token of the all-accounts key: "
            f".venv/bin/python manage.py issue_token --private-key {all_accounts_path}"
        )
        self.stdout.write(f"API docs: {base}/docs/   Admin: {base}/admin/")
        # On `localhost`, so the card fields come from the other name (127.0.0.1): a real cross-origin checkout.
        self.stdout.write(f"Demo checkout: http://localhost:{options['port']}/demo/checkout/\n")

    def _api_key(self, path: Path, account: MerchantAccount | None) -> str:
        """Reuse the private key on disk (re-registering its public half), or generate one (None: every account)."""
        if path.exists():
            pem = path.read_text()
            api_key_register(public_key_pem=public_pem(load_private_pem(pem)), merchant_account=account)
            return pem
        generated = api_key_generate(merchant_account=account)
        write_private_key(path, generated.private_key_pem)
        self.stdout.write(f"API key {generated.api_key.kid}: private key written to {path}")
        return generated.private_key_pem

    def _admin_login(self) -> None:
        users = get_user_model().objects
        if users.filter(username=ADMIN_USERNAME).exists():
            self.stdout.write(
                f"Admin login '{ADMIN_USERNAME}' exists (its password was printed once, when it was created). "
                f"Set a new one: .venv/bin/python manage.py changepassword {ADMIN_USERNAME}"
            )
            return
        password = secrets.token_urlsafe(12)
        users.create_superuser(ADMIN_USERNAME, email="", password=password)
        self.stdout.write(self.style.WARNING(f"Admin login created: {ADMIN_USERNAME} / {password}  (shown once)"))
