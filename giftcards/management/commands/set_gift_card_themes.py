"""Set the theme codes a merchant account's gift card issuances accept (`POST /gift-cards/issuances`)."""

from django.core.management.base import BaseCommand, CommandError

from giftcards.services import gift_card_service_set_themes
from payments.accounts.selectors import merchant_account_get
from payments.errors import DomainError


class Command(BaseCommand):
    help = (
        "Set the themes gift cards of a merchant account are issued in: an issuance naming another theme is refused. "
        "Without --theme, any theme is accepted and kept as given."
    )

    def add_arguments(self, parser):
        parser.add_argument("--merchant-account", required=True, help="Merchant account id.")
        parser.add_argument("--theme", action="append", default=[], help="A theme code; repeat for each theme.")

    def handle(self, *args, **options):
        account = merchant_account_get(id=options["merchant_account"])
        if account is None:
            raise CommandError(f"Unknown merchant account '{options['merchant_account']}'.")
        try:
            service = gift_card_service_set_themes(merchant_account=account, themes=options["theme"])
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        shown = ", ".join(service.themes) if service.themes else "any theme"
        self.stdout.write(f"Gift cards of {account.pk} are issued in: {shown}.")
