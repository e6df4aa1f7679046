"""The transactional outbox: events written with the change that causes them, read by consumers after the commit.

A resource service publishes inside its own `transaction.atomic`, so the event commits or rolls back with the
change:

    outbox_publish(merchant_account_id=txn.merchant_account_id, name="transaction.captured",
                   target_type="transaction", target_id=str(txn.pk))

This package knows no resource and no consumer. Both register from their `AppConfig.ready`:

- a resource app registers how to render each target type it publishes (`register_target`): the consumer
  asks for the target's current representation when it sends, and gets None for a target that is gone;
- a consumer (the webhooks app) registers what it listens to and what it does with an event inside the
  publishing transaction (`register_consumer`), e.g. enqueue the job that delivers it. An event no consumer
  listens to is not written at all, so publishing costs nothing for an account with no webhook subscription.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.conf import settings
from django.db import transaction
from django.db.models import Model

from payments.outbox.models import OutboxEvent

logger = logging.getLogger(__name__)

# Renders one target, by id, as the API would answer for it; None when it no longer exists.
TargetRenderer = Callable[[str], dict[str, Any] | None]


class OutboxConsumer(Protocol):
    def listens(self, merchant_account_id: str) -> bool:
        """Whether events of this account should be written at all (cheap: called on every publish)."""

    def published(self, event: OutboxEvent) -> None:
        """Called inside the publishing transaction, right after the event row is written."""


@dataclass(frozen=True)
class OutboxActivity:
    """What a consumer did with one event about a target (a webhook delivery), as a staff timeline shows it."""

    at: datetime
    kind: str  # "webhook"
    what: str
    note: str
    row: Model  # the consumer's own row, linked to its admin page
    link_text: str


# What a consumer did with the events about the given target ids, oldest first.
ActivitySource = Callable[[list[str]], list[OutboxActivity]]

_renderers: dict[str, TargetRenderer] = {}
_consumers: dict[str, OutboxConsumer] = {}
_activity_sources: dict[str, ActivitySource] = {}


class UnknownTarget(LookupError):
    """No app registered a renderer for this target type."""


def register_target(target_type: str, render: TargetRenderer) -> None:
    """Render targets of `target_type` with `render`; registering again replaces it, so `ready()` may run twice."""
    _renderers[target_type] = render


def register_consumer(name: str, consumer: OutboxConsumer) -> None:
    """Hand every published event to `consumer`; registering a name again replaces it."""
    _consumers[name] = consumer


def unregister_consumer(name: str) -> None:
    """Forget the consumer under `name` (tests)."""
    _consumers.pop(name, None)


def register_activity(name: str, source: ActivitySource) -> None:
    """Show what consumer `name` did with the events about a target on that target's timeline (a resource's staff
    page asks `outbox_activity_about`, knowing no consumer); registering a name again replaces it."""
    _activity_sources[name] = source


def outbox_activity_about(*, target_ids: list[str]) -> list[OutboxActivity]:
    """What every consumer did with the events about these targets."""
    return [activity for source in _activity_sources.values() for activity in source(target_ids)]


def target_types() -> list[str]:
    """The target types apps registered, sorted."""
    return sorted(_renderers)


def outbox_render_target(*, target_type: str, target_id: str) -> dict[str, Any] | None:
    """The target as the API shows it now; None when it no longer exists."""
    try:
        render = _renderers[target_type]
    except KeyError:
        raise UnknownTarget(f"No renderer is registered for target type {target_type!r}.") from None
    return render(target_id)


def outbox_publish(*, merchant_account_id: str, name: str, target_type: str, target_id: str) -> OutboxEvent | None:
    """Record that `name` happened to the target, in the caller's database transaction; None when no consumer
    listens to this account (nothing is written)."""
    if not transaction.get_connection().in_atomic_block:
        # Outside a transaction the event could commit without its change, or the change without its event.
        raise RuntimeError("outbox_publish must run inside the transaction that makes the change.")
    if target_type not in _renderers:
        raise UnknownTarget(f"No renderer is registered for target type {target_type!r}.")
    listeners = [consumer for consumer in _consumers.values() if consumer.listens(merchant_account_id)]
    if not listeners:
        return None
    event = OutboxEvent.objects.create(
        merchant_account_id=merchant_account_id, name=name, target_type=target_type, target_id=target_id
    )
    for consumer in listeners:
        consumer.published(event)
    return event


def outbox_events_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Delete one batch of events older than `OUTBOX_RETENTION_DAYS` (their deliveries and attempts with them)."""
    cutoff = now - timedelta(days=settings.OUTBOX_RETENTION_DAYS)
    with transaction.atomic():
        ids = list(
            OutboxEvent.objects.select_for_update(skip_locked=True)
            .filter(created_at__lte=cutoff)
            .values_list("pk", flat=True)[:batch_size]
        )
        OutboxEvent.objects.filter(pk__in=ids).delete()
    return len(ids)
