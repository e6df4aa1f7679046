"""From an outbox event to deliveries, and one delivery to its receiver: sending it once, again, and reporting
receivers that keep failing.

Delivery is at least once and never twice at once: a worker claims a delivery with one conditional UPDATE
(due, and not held by a live lease) before it sends, and records the outcome only under its own lease token.
A worker that dies mid-send leaves a lease that simply runs out; the sweep (`webhooks.tasks.webhooks_sweep`)
then hands the delivery to another worker. docs/webhooks.md describes the schedule and the states.

The two background tasks are declared at the end, beside the functions they run: the code that queues a task
and the code the task runs are one module, so nothing imports back into it.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import secrets
import socket
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import task

from payments.errors import Conflict
from payments.outbox import outbox_render_target
from payments.outbox.models import OutboxEvent
from webhooks import outbound, selectors, signing
from webhooks.models import AuthenticationKind, DeliveryState, WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.services.subscriptions import webhook_subscription_password, webhook_subscription_signing_secrets

logger = logging.getLogger(__name__)


USER_AGENT = "payments-webhooks/1"
# Who is sending, in leases and attempt records: enough for an operator to find the process.
WORKER = f"{socket.gethostname()}:{os.getpid()}"
_random = secrets.SystemRandom()


def _timestamp(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def webhook_body(event: OutboxEvent, target: dict[str, Any]) -> str:
    """The notification, upstream's shape: one event naming what changed, with the target as the API shows it."""
    return json.dumps(
        {
            "type": "event",
            "id": str(event.pk),
            "name": event.name,
            "created_at": _timestamp(event.created_at),
            "merchant_account_id": event.merchant_account_id,
            "gr4vy_id": settings.WEBHOOK_INSTANCE_ID,
            "environment": settings.WEBHOOK_ENVIRONMENT,
            "target": target,
        },
        cls=DjangoJSONEncoder,
        separators=(",", ":"),
    )


def webhook_event_dispatch(*, event_id: uuid.UUID | str, now: datetime | None = None) -> list[WebhookDelivery]:
    """One delivery per active subscription of the event's account, made once (a repeat finds the event taken),
    each queued for its first attempt in the same transaction."""
    now = now or timezone.now()
    with transaction.atomic():
        event = OutboxEvent.objects.select_for_update().filter(pk=event_id, dispatched_at__isnull=True).first()
        if event is None:
            return []
        subscriptions = list(selectors.active_subscriptions_of(event.merchant_account_id))
        target = (
            outbox_render_target(target_type=event.target_type, target_id=event.target_id) if subscriptions else None
        )
        deliveries = []
        if target is not None:
            body = webhook_body(event, target)
            retry_until = event.created_at + timedelta(seconds=settings.WEBHOOK_RETRY_FOR_SECONDS)
            deliveries = WebhookDelivery.objects.bulk_create(
                WebhookDelivery(
                    subscription=subscription, event=event, body=body, next_attempt_at=now, retry_until=retry_until
                )
                for subscription in subscriptions
            )
            for delivery in deliveries:
                attempt_delivery.enqueue(str(delivery.pk))
        event.dispatched_at = now
        event.save(update_fields=["dispatched_at"])
    return deliveries


@dataclass(frozen=True)
class AttemptOutcome:
    """What one claimed attempt did: its record, and when the delivery will be tried again (None: it will not)."""

    attempt: WebhookAttempt
    retry_at: datetime | None


def webhook_retry_delay(attempt_number: int) -> timedelta:
    """How long after failed attempt `attempt_number` (1, 2, ...) the next one is due: doubling from
    `WEBHOOK_RETRY_BASE_SECONDS` up to `WEBHOOK_RETRY_MAX_DELAY_SECONDS`, spread by `WEBHOOK_RETRY_JITTER`."""
    base = settings.WEBHOOK_RETRY_BASE_SECONDS * 2 ** min(attempt_number - 1, 32)
    delay = min(base, settings.WEBHOOK_RETRY_MAX_DELAY_SECONDS)
    jitter = settings.WEBHOOK_RETRY_JITTER
    return timedelta(seconds=delay * _random.uniform(1 - jitter, 1 + jitter))


def _claim(delivery_id: uuid.UUID | str, *, now: datetime, worker: str) -> uuid.UUID | None:
    """Take the delivery for one attempt if it is due and no live lease holds it; one UPDATE, so one winner."""
    token = uuid.uuid4()
    claimed = (
        WebhookDelivery.objects.filter(pk=delivery_id, state=DeliveryState.PENDING, next_attempt_at__lte=now)
        .filter(Q(leased_until__isnull=True) | Q(leased_until__lt=now))
        .update(
            leased_until=now + timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS),
            lease_token=token,
            leased_by=worker,
            attempt_count=F("attempt_count") + 1,
        )
    )
    return token if claimed else None


def _headers(delivery: WebhookDelivery, subscription: WebhookSubscription, *, now: datetime) -> dict[str, str]:
    timestamp = int(now.timestamp())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        signing.ID_HEADER: str(delivery.pk),
        signing.TIMESTAMP_HEADER: str(timestamp),
        signing.SIGNATURES_HEADER: signing.signatures_header(
            webhook_subscription_signing_secrets(subscription, now=now), timestamp=timestamp, body=delivery.body
        ),
    }
    password = webhook_subscription_password(subscription)
    if subscription.auth_kind == AuthenticationKind.BASIC and password is not None:
        credentials = base64.b64encode(f"{subscription.auth_username}:{password}".encode()).decode()
        headers["Authorization"] = f"Basic {credentials}"
    return headers


def webhook_delivery_attempt(
    *, delivery_id: uuid.UUID | str, now: datetime | None = None, worker: str = WORKER
) -> AttemptOutcome | None:
    """Send the delivery once if it is due and free; None when it is not (delivered, not yet due, or being sent
    by another worker). A 2xx within the timeout delivers it; anything else schedules the next attempt, or gives
    up once the retry window is over."""
    now = now or timezone.now()
    token = _claim(delivery_id, now=now, worker=worker)
    if token is None:
        return None
    delivery = WebhookDelivery.objects.select_related("subscription", "event").filter(pk=delivery_id).first()
    if delivery is None:  # purged with its event meanwhile
        return None
    subscription = delivery.subscription
    if subscription is None:  # deleted between the claim and this read: not sent
        _deleted_while_sending(delivery_id)
        return None
    if subscription.active:
        answer = outbound.post(
            subscription.url, body=delivery.body.encode(), headers=_headers(delivery, subscription, now=now)
        )
    else:
        answer = outbound.Answer(
            status_code=None, excerpt="", error="Not sent: the subscription is inactive.", duration_ms=0
        )
    return _record(delivery, subscription, token=token, answer=answer, now=now, worker=worker)


def _deleted_while_sending(delivery_id: uuid.UUID | str) -> None:
    # The merchant deleted the subscription while this attempt was under way: an ordinary outcome, not a failure.
    # What the attempt did is recorded on the delivery (kept), and nothing more is sent.
    logger.info("Webhook delivery %s: its subscription was deleted during the attempt; not sent again", delivery_id)


@transaction.atomic
def _record(
    delivery: WebhookDelivery,
    sent_to: WebhookSubscription,
    *,
    token: uuid.UUID,
    answer: outbound.Answer,
    now: datetime,
    worker: str,
) -> AttemptOutcome | None:
    # Locked while the attempt is written, so a deletion of its subscription waits (or has already happened, and
    # the attempt is kept but schedules nothing more); a delivery purged with its event meanwhile records nothing.
    locked = WebhookDelivery.objects.select_for_update().filter(pk=delivery.pk).values_list("subscription_id").first()
    if locked is None:
        return None
    subscription_deleted = locked[0] is None
    attempt = WebhookAttempt.objects.create(
        delivery=delivery,
        number=delivery.attempt_count,
        started_at=now,
        duration_ms=answer.duration_ms,
        succeeded=answer.succeeded,
        status_code=answer.status_code,
        error=answer.error[:255],
        response_excerpt=answer.excerpt,
        worker=worker,
        requested_by=delivery.resend_requested_by,
    )
    mine = WebhookDelivery.objects.filter(pk=delivery.pk, lease_token=token)
    released = {"leased_until": None, "lease_token": None, "resend_requested_by": ""}
    subscription = WebhookSubscription.objects.filter(pk=sent_to.pk)
    retry_at = None if answer.succeeded else now + webhook_retry_delay(delivery.attempt_count)
    if answer.succeeded:
        updated = mine.update(
            state=DeliveryState.DELIVERED, delivered_at=now, next_attempt_at=None, updated_at=now, **released
        )
        subscription.update(failing_since=None, last_delivered_at=now)
    elif subscription_deleted:
        retry_at = None
        updated = mine.update(updated_at=now, **released)  # canceled by the deletion; never sent again
    elif retry_at is None or not sent_to.active or retry_at > delivery.retry_until:
        retry_at = None
        updated = mine.update(state=DeliveryState.EXPIRED, next_attempt_at=None, updated_at=now, **released)
        logger.warning(
            "Webhook delivery %s to subscription %s given up after %d attempts: %s",
            delivery.pk,
            sent_to.pk,
            delivery.attempt_count,
            answer.error,
        )
    else:
        updated = mine.update(next_attempt_at=retry_at, updated_at=now, **released)
        subscription.filter(failing_since__isnull=True).update(failing_since=now)
        attempt_delivery.using(run_after=retry_at).enqueue(str(delivery.pk))
    if subscription_deleted:
        _deleted_while_sending(delivery.pk)
    elif not updated:
        # The lease ran out while this attempt was sending and another worker has the delivery now.
        logger.warning("Webhook delivery %s: attempt %d outlived its lease", delivery.pk, attempt.number)
        retry_at = None
    return AttemptOutcome(attempt=attempt, retry_at=retry_at)


@transaction.atomic
def webhook_delivery_resend(
    *, delivery: WebhookDelivery, requested_by: str, now: datetime | None = None
) -> WebhookDelivery:
    """Send the delivery again now, whatever its state (delivered, pending or given up), with a fresh retry
    window; the next attempt is recorded as asked for by `requested_by`."""
    now = now or timezone.now()
    delivery = WebhookDelivery.objects.select_for_update().get(pk=delivery.pk)
    if delivery.subscription_id is None:
        raise Conflict("The delivery's webhook subscription was deleted: there is nowhere to send it again.")
    delivery.state = DeliveryState.PENDING
    delivery.next_attempt_at = now
    delivery.retry_until = max(delivery.retry_until, now + timedelta(seconds=settings.WEBHOOK_RETRY_FOR_SECONDS))
    delivery.resend_requested_by = requested_by
    delivery.save(update_fields=["state", "next_attempt_at", "retry_until", "resend_requested_by", "updated_at"])
    attempt_delivery.enqueue(str(delivery.pk))
    logger.info("Webhook delivery %s: sent again at the request of %s", delivery.pk, requested_by)
    return delivery


def webhook_subscriptions_report_failing(*, now: datetime | None = None) -> list[WebhookSubscription]:
    """Log a warning for every subscription whose attempts have all failed for `WEBHOOK_FAILING_REPORT_AFTER_SECONDS`
    (the scheduled failure report); returns them."""
    now = now or timezone.now()
    since = now - timedelta(seconds=settings.WEBHOOK_FAILING_REPORT_AFTER_SECONDS)
    failing = list(selectors.subscriptions_failing(since=since))
    for subscription in failing:
        logger.warning(
            "Webhook subscription %s (merchant account %s) has failed every attempt since %s: "
            "%d deliveries pending, %d given up",
            subscription.pk,
            subscription.merchant_account_id,
            _timestamp(subscription.failing_since or now),
            subscription.pending,  # type: ignore[attr-defined]
            subscription.given_up,  # type: ignore[attr-defined]
        )
    return failing


# --- tasks ------------------------------------------------------------------------------------------------
# Tasks hold no state of their own: a delivery's state lives in its row, so running a task twice, late, or not
# at all (the sweep then runs it) never sends an attempt twice at once.


@task()
def dispatch_event(event_id: str) -> None:
    """Make the event's deliveries (and queue their first attempts)."""
    webhook_event_dispatch(event_id=event_id)


@task()
def attempt_delivery(delivery_id: str) -> None:
    """Attempt the delivery if it is due and free; a retry queues itself again."""
    webhook_delivery_attempt(delivery_id=delivery_id)
