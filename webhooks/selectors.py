"""Reads of webhook subscriptions and deliveries, scoped to one merchant account where a merchant asks."""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Q, QuerySet

from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import NotFound
from payments.outbox.models import OutboxEvent
from webhooks.models import DeliveryState, WebhookDelivery, WebhookSubscription

_NOT_FOUND = "The webhook subscription could not be found."

# merchant account id -> (monotonic expiry, has an active subscription): read on every outbox publish.
_listening: dict[str, tuple[float, bool]] = {}


def webhook_subscription_list(*, merchant_account: MerchantAccount) -> QuerySet[WebhookSubscription]:
    """The account's subscriptions; pagination orders them."""
    return account_rows(WebhookSubscription, merchant_account)


def webhook_subscription_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> WebhookSubscription:
    """One subscription of the account; another account's is not found, like a missing one."""
    try:
        pk = id if isinstance(id, uuid.UUID) else uuid.UUID(str(id))
    except ValueError:
        raise NotFound(_NOT_FOUND) from None
    subscription = account_rows(WebhookSubscription, merchant_account).filter(pk=pk).first()
    if subscription is None:
        raise NotFound(_NOT_FOUND)
    return subscription


def account_has_active_subscription(merchant_account_id: str) -> bool:
    """Whether the account has an active subscription, as this process saw it at most
    `WEBHOOK_SUBSCRIPTION_CACHE_SECONDS` ago (at once after a change made in this process)."""
    now = time.monotonic()
    cached = _listening.get(merchant_account_id)
    if cached is not None and cached[0] > now:
        return cached[1]
    active = WebhookSubscription.objects.filter(merchant_account_id=merchant_account_id, active=True).exists()
    _listening[merchant_account_id] = (now + settings.WEBHOOK_SUBSCRIPTION_CACHE_SECONDS, active)
    return active


def forget_active_subscriptions(merchant_account_id: str | None = None) -> None:
    """Drop what this process remembers of one account's subscriptions (or of every account's)."""
    if merchant_account_id is None:
        _listening.clear()
    else:
        _listening.pop(merchant_account_id, None)


def active_subscriptions_of(merchant_account_id: str) -> QuerySet[WebhookSubscription]:
    """The subscriptions an event of this account is delivered to."""
    return WebhookSubscription.objects.filter(merchant_account_id=merchant_account_id, active=True).order_by(
        "created_at", "id"
    )


def deliveries_overdue(*, now: datetime, grace_seconds: float) -> QuerySet[WebhookDelivery]:
    """Pending deliveries due for longer than the grace and held by no live worker: their task was lost."""
    due_before = now - timedelta(seconds=grace_seconds)
    return WebhookDelivery.objects.filter(state=DeliveryState.PENDING, next_attempt_at__lte=due_before).filter(
        Q(leased_until__isnull=True) | Q(leased_until__lt=now)
    )


def events_undispatched(*, now: datetime, grace_seconds: float) -> QuerySet[OutboxEvent]:
    """Outbox events older than the grace that no dispatch has taken yet."""
    return OutboxEvent.objects.filter(
        dispatched_at__isnull=True, created_at__lte=now - timedelta(seconds=grace_seconds)
    )


def subscriptions_failing(*, since: datetime) -> QuerySet[WebhookSubscription]:
    """Subscriptions whose every attempt has failed since before `since`, with their pending and given-up counts."""
    return (
        WebhookSubscription.objects.filter(failing_since__lte=since)
        .annotate(
            pending=Count("deliveries", filter=Q(deliveries__state=DeliveryState.PENDING)),
            given_up=Count("deliveries", filter=Q(deliveries__state=DeliveryState.EXPIRED)),
        )
        .order_by("failing_since", "id")
    )


def webhook_deliveries_about(*, target_ids: list[str]) -> QuerySet[WebhookDelivery]:
    """The deliveries of the events about these targets (a transaction and its refunds), oldest first."""
    return (
        WebhookDelivery.objects.filter(event__target_id__in=target_ids)
        .select_related("event", "subscription")
        .order_by("created_at", "id")
    )
