"""The scheduled sweep of webhooks: it picks up whatever a dead worker or a lost task left behind.

The tasks it queues (`dispatch_event`, `attempt_delivery`) are declared beside the work they run, in
`webhooks.services.deliveries`.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from webhooks import selectors
from webhooks.services.deliveries import attempt_delivery, dispatch_event

logger = logging.getLogger(__name__)

# Rows the sweep hands out per run; the next run takes the rest.
SWEEP_BATCH = 500


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
