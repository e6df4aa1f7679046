"""Webhook subscriptions: create, update, rotate and delete them, and the values sealed on them (the signing
secrets, a receiver's password), opened only to sign or authenticate a delivery."""

from __future__ import annotations

import logging
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from payments.accounts.models import MerchantAccount
from payments.errors import DomainError
from payments.partial import UNCHANGED, Unchanged
from payments.vault import crypto
from webhooks import outbound, selectors
from webhooks.models import AuthenticationKind, DeliveryState, WebhookDelivery, WebhookSubscription

logger = logging.getLogger(__name__)


# Bytes of randomness in a signing secret (shown as twice as many hex digits).
SECRET_BYTES = 32


@dataclass(frozen=True)
class BasicAuthentication:
    """Credentials the receiver checks on every delivery (HTTP basic)."""

    username: str
    password: str


def _context(subscription: WebhookSubscription, field: str) -> str:
    return f"webhooks.subscription:{subscription.pk}:{field}"


def _seal(subscription: WebhookSubscription, field: str, value: str) -> str:
    return crypto.encrypt(value, context=_context(subscription, field))


def _open(subscription: WebhookSubscription, field: str, token: str) -> str:
    return crypto.decrypt(token, context=_context(subscription, field))


def webhook_subscription_secret(subscription: WebhookSubscription) -> str:
    """The secret that signs deliveries now (shown in the API's answers, as upstream shows it)."""
    return _open(subscription, "secret", subscription.secret_sealed)


def webhook_subscription_rotating(subscription: WebhookSubscription, *, now: datetime | None = None) -> bool:
    """Whether the secret a rotation replaced still signs too."""
    expires = subscription.previous_secret_expires_at
    return subscription.previous_secret_sealed is not None and expires is not None and expires > (now or timezone.now())


def webhook_subscription_signing_secrets(subscription: WebhookSubscription, *, now: datetime) -> list[str]:
    """Every secret that signs a delivery sent `now`: the current one, then the one a rotation replaced."""
    live = [webhook_subscription_secret(subscription)]
    if webhook_subscription_rotating(subscription, now=now) and subscription.previous_secret_sealed:
        live.append(_open(subscription, "previous_secret", subscription.previous_secret_sealed))
    return live


def webhook_subscription_password(subscription: WebhookSubscription) -> str | None:
    """The receiver's basic-auth password, for sending only (the API shows it masked)."""
    if subscription.auth_password_sealed is None:
        return None
    return _open(subscription, "auth_password", subscription.auth_password_sealed)


def _require_url(url: str) -> None:
    try:
        outbound.url_check(url)
    except outbound.UnsafeUrl as exc:
        raise DomainError(str(exc), pointer="/url") from None


def _set_authentication(subscription: WebhookSubscription, authentication: BasicAuthentication | None) -> None:
    if authentication is None:
        subscription.auth_kind = subscription.auth_username = subscription.auth_password_sealed = None
        return
    subscription.auth_kind = AuthenticationKind.BASIC
    subscription.auth_username = authentication.username
    subscription.auth_password_sealed = _seal(subscription, "auth_password", authentication.password)


def _changed(subscription: WebhookSubscription) -> None:
    """This process forgets at once what it knew of the account's subscriptions; others within the cache time."""
    selectors.forget_active_subscriptions(subscription.merchant_account_id)
    transaction.on_commit(lambda: selectors.forget_active_subscriptions(subscription.merchant_account_id))


@transaction.atomic
def webhook_subscription_create(
    *,
    merchant_account: MerchantAccount,
    url: str,
    active: bool = True,
    authentication: BasicAuthentication | None = None,
) -> WebhookSubscription:
    """A subscription to every event of the account, with a new signing secret; the URL must be a safe receiver."""
    _require_url(url)
    subscription = WebhookSubscription(id=uuid.uuid4(), merchant_account=merchant_account, url=url, active=active)
    subscription.secret_sealed = _seal(subscription, "secret", secrets.token_hex(SECRET_BYTES))
    _set_authentication(subscription, authentication)
    subscription.save(force_insert=True)
    _changed(subscription)
    return subscription


@transaction.atomic
def webhook_subscription_update(
    *,
    subscription: WebhookSubscription,
    url: str | Unchanged = UNCHANGED,
    active: bool | Unchanged = UNCHANGED,
    authentication: BasicAuthentication | Unchanged | None = UNCHANGED,
) -> WebhookSubscription:
    """Change only what is given; `authentication=None` removes the receiver's credentials."""
    subscription = WebhookSubscription.objects.select_for_update().get(pk=subscription.pk)
    if url is not UNCHANGED:
        _require_url(url)
        subscription.url = url
    if active is not UNCHANGED:
        subscription.active = active
    if authentication is not UNCHANGED:
        _set_authentication(subscription, authentication)
    subscription.save()
    _changed(subscription)
    return subscription


@transaction.atomic
def webhook_subscription_delete(*, subscription: WebhookSubscription) -> None:
    """Delete the subscription: nothing more is sent to it, pending deliveries included (they are canceled). Its
    deliveries and their attempts stay, naming its id and URL, until the purge of their events.

    Its deliveries are locked first, so an attempt being recorded for one of them either commits before the
    deletion (and is kept) or finds its subscription gone and schedules nothing more (`_record`)."""
    _changed(subscription)
    deliveries = WebhookDelivery.objects.filter(subscription=subscription)
    list(deliveries.select_for_update().values_list("pk", flat=True))
    pending = deliveries.filter(state=DeliveryState.PENDING)
    pending.update(state=DeliveryState.CANCELED, next_attempt_at=None, updated_at=timezone.now())
    deliveries.update(former_subscription_id=subscription.pk, former_subscription_url=subscription.url)
    subscription.delete()


@transaction.atomic
def webhook_subscription_rotate_secret(
    *, subscription: WebhookSubscription, delta_minutes: int | None, now: datetime | None = None
) -> WebhookSubscription:
    """A new signing secret; the current one keeps signing beside it for `delta_minutes` (none or 0: it stops now).

    A rotation during a rotation retires the oldest secret at once: at most two secrets are ever live.
    """
    now = now or timezone.now()
    subscription = WebhookSubscription.objects.select_for_update().get(pk=subscription.pk)
    if delta_minutes:
        current = webhook_subscription_secret(subscription)
        subscription.previous_secret_sealed = _seal(subscription, "previous_secret", current)
        subscription.previous_secret_expires_at = now + timedelta(minutes=delta_minutes)
    else:
        subscription.previous_secret_sealed = subscription.previous_secret_expires_at = None
    subscription.secret_sealed = _seal(subscription, "secret", secrets.token_hex(SECRET_BYTES))
    subscription.save()
    logger.info(
        "Webhook subscription %s: secret rotated (old secret valid %s more minutes)",
        subscription.pk,
        delta_minutes or 0,
    )
    return subscription
