"""The background work of webhooks, on django-tasks: turn an event into deliveries, attempt a delivery, and
the sweep that picks up whatever a dead worker or a lost task left behind.

Tasks hold no state of their own: a delivery's state lives in its row, so running a task twice, late, or not
at all (the sweep then runs it) never sends an attempt twice at once.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.utils import timezone
from django_tasks import task

from webhooks import selectors

logger = logging.getLogger(__name__)

# Rows the sweep hands out per run; the next run takes the rest.
SWEEP_BATCH = 500


@task()
def dispatch_event(event_id: str) -> None:
    """Make the event's deliveries (and queue their first attempts)."""
    from webhooks.services import webhook_event_dispatch

    webhook_event_dispatch(event_id=event_id)


@task()
def attempt_delivery(delivery_id: str) -> None:
    """Attempt the delivery if it is due and free; a retry queues itself again."""
    from webhooks.services import webhook_delivery_attempt

    webhook_delivery_attempt(delivery_id=delivery_id)


def webhooks_sweep(*, now: datetime | None = None) -> tuple[int, int]:
    """Queue the events no dispatch took and the deliveries overdue with no live lease (their worker died, or
    their task was lost); a scheduled job. Returns how many of each were queued."""
    now = now or timezone.now()
    grace = settings.WEBHOOK_SWEEP_GRACE_SECONDS
    events = list(
        selectors.events_undispatched(now=now, grace_seconds=grace).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    for event_id in events:
        dispatch_event.enqueue(str(event_id))
    deliveries = list(
        selectors.deliveries_overdue(now=now, grace_seconds=grace).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    for delivery_id in deliveries:
        attempt_delivery.enqueue(str(delivery_id))
    if events or deliveries:
        logger.info("Webhook sweep queued %d events and %d overdue deliveries", len(events), len(deliveries))
    return len(events), len(deliveries)
