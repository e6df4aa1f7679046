from typing import Any

from django.core.management.base import BaseCommand

from payouts.models import Payout, PayoutStatus
from settlements.services import ledger_payout_record


class Command(BaseCommand):
    help = (
        "Write the ledger line of each succeeded payout to a card that has none: payouts that succeeded before the "
        "ledger kept them (docs/reconciliation.md, 'Payouts to cards'). Safe to run again: a payout is in the "
        "ledger once."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        unwritten = Payout.objects.filter(status=PayoutStatus.SUCCEEDED, ledger_entries__isnull=True)
        written = 0
        for payout in unwritten.select_related("merchant_account", "payment_service").order_by("created_at", "pk"):
            if ledger_payout_record(payout) is not None:
                written += 1
        self.stdout.write(f"{written} succeeded payouts written to the ledger.")
