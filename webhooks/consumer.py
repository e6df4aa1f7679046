"""The webhooks app as a consumer of the outbox (`payments.outbox`)."""

from __future__ import annotations

from payments.outbox import OutboxActivity
from payments.outbox.models import OutboxEvent
from webhooks import selectors
from webhooks.services.deliveries import dispatch_event


class WebhookConsumer:
    """Events of accounts with an active subscription are written, and their dispatch queued with them."""

    def listens(self, merchant_account_id: str) -> bool:
        return selectors.account_has_active_subscription(merchant_account_id)

    def published(self, event: OutboxEvent) -> None:
        # The task row is written in the publishing transaction (the database task backend), so the event and
        # the work to deliver it commit together; the sweep covers a backend that cannot promise that.
        dispatch_event.enqueue(str(event.pk))


def webhook_activity_about(target_ids: list[str]) -> list[OutboxActivity]:
    """The deliveries of the events about these targets, as a timeline shows them (one query)."""
    return [
        OutboxActivity(
            at=delivery.created_at,
            kind="webhook",
            what=(f"webhook {delivery.event.name} to {delivery.receiver_url}: {delivery.get_state_display().lower()}"),
            note=f"{delivery.attempt_count} attempt(s)",
            row=delivery,
            link_text="delivery",
        )
        for delivery in selectors.webhook_deliveries_about(target_ids=target_ids)
    ]
