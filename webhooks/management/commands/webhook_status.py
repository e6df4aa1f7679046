from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Count, Q

from webhooks.models import DeliveryState, WebhookSubscription


class Command(BaseCommand):
    help = (
        "List webhook subscriptions with their pending and given-up deliveries and since when they fail; "
        "exit status 1 when any subscription is failing (for monitoring)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--failing", action="store_true", help="Only subscriptions whose attempts all fail.")

    def handle(self, *args: Any, **options: Any) -> None:
        subscriptions = WebhookSubscription.objects.annotate(
            pending=Count("deliveries", filter=Q(deliveries__state=DeliveryState.PENDING)),
            given_up=Count("deliveries", filter=Q(deliveries__state=DeliveryState.EXPIRED)),
        ).order_by("merchant_account_id", "created_at")
        if options["failing"]:
            subscriptions = subscriptions.filter(failing_since__isnull=False)
        failing = listed = 0
        for subscription in subscriptions:
            listed += 1
            since = _time(subscription.failing_since)
            failing += subscription.failing_since is not None
            self.stdout.write(
                f"{subscription.pk} {subscription.merchant_account_id} active={subscription.active} "
                f"pending={subscription.pending} given_up={subscription.given_up} failing_since={since} "
                f"last_delivered={_time(subscription.last_delivered_at)}"
            )
        if not listed:
            # Silence would read as a command that did nothing; monitoring still gets exit status 0.
            nothing = "No webhook subscription is failing." if options["failing"] else "No webhook subscription."
            self.stdout.write(nothing)
        if failing:
            self.stderr.write(f"{failing} subscription(s) failing.")
            raise SystemExit(1)


def _time(value: datetime | None) -> str:
    return value.isoformat(timespec="seconds") if value else "-"
