"""Webhook subscriptions, one delivery per (event, subscription), and every attempt at sending it.

Signing secrets and receiver credentials are sealed with the vault's AES-GCM (`payments.vault.crypto`) under
a context bound to the subscription's row and field: a copied ciphertext opens nowhere else.
"""

import uuid

from django.db import models
from django.db.models import Q

from payments.accounts.models import MerchantAccount
from payments.outbox.models import OutboxEvent
from payments.timestamped import TimestampedModel


class AuthenticationKind(models.TextChoices):
    BASIC = "basic", "HTTP basic"


class WebhookSubscription(TimestampedModel):
    """A merchant's receiver: where events of its account are sent, signed with its secret."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.CASCADE, related_name="webhook_subscriptions", db_index=False
    )
    url = models.CharField("URL", max_length=2048)
    active = models.BooleanField(default=True)
    # The receiver's credentials, sent with every delivery: the password is sealed.
    auth_kind = models.CharField(max_length=32, choices=AuthenticationKind.choices, null=True, blank=True)
    auth_username = models.CharField(max_length=255, null=True, blank=True)
    auth_password_sealed = models.TextField(null=True, blank=True, editable=False)
    # The signing secret, and during a rotation the one it replaced, until `previous_secret_expires_at`.
    secret_sealed = models.TextField(editable=False)
    previous_secret_sealed = models.TextField(null=True, blank=True, editable=False)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    # Since when every attempt has failed (cleared by the next success): what the failure report reads.
    failing_since = models.DateTimeField(null=True, blank=True)
    last_delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "webhook subscription"
        indexes = [
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="webhook_subscription_page"),
            models.Index(fields=["merchant_account"], name="webhook_subscription_active", condition=Q(active=True)),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(auth_kind__isnull=True)
                | Q(auth_username__isnull=False, auth_password_sealed__isnull=False),
                name="webhook_subscription_auth_complete",
            ),
        ]

    def __str__(self) -> str:
        return self.url


class DeliveryState(models.TextChoices):
    PENDING = "pending", "Pending"
    DELIVERED = "delivered", "Delivered"
    # Every attempt within the retry window failed; an operator may still send it again.
    EXPIRED = "expired", "Given up"
    # Its subscription was deleted before it was delivered: kept for the record, never sent again.
    CANCELED = "canceled", "Canceled (subscription deleted)"


class WebhookDelivery(models.Model):
    """One event for one subscription, sent until the receiver acknowledges it or the retry window ends.

    Its id is the `X-Gr4vy-Webhook-Id` header: the same on every attempt, so a receiver can drop repeats.
    The body is frozen when the delivery is made, so every attempt sends the very same bytes.
    """

    State = DeliveryState

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    # Null once the subscription is deleted: the delivery and its attempts stay for their retention (the outbox
    # event's, whose purge removes them), with the deleted subscription's id and URL kept below.
    subscription = models.ForeignKey(
        WebhookSubscription, on_delete=models.SET_NULL, null=True, blank=True, related_name="deliveries", db_index=False
    )
    former_subscription_id = models.UUIDField("former subscription ID", null=True, blank=True, editable=False)
    former_subscription_url = models.CharField("former subscription URL", max_length=2048, blank=True, editable=False)
    event = models.ForeignKey(OutboxEvent, on_delete=models.CASCADE, related_name="webhook_deliveries", db_index=False)
    body = models.TextField(editable=False)
    state = models.CharField(max_length=16, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempt_count = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    retry_until = models.DateTimeField()
    # While a worker sends, it holds the delivery until `leased_until`; `leased_by` names it (host:pid).
    leased_until = models.DateTimeField(null=True, blank=True)
    lease_token = models.UUIDField(null=True, blank=True, editable=False)
    leased_by = models.CharField(max_length=255, blank=True)
    # Set by "send again" in the admin; the next attempt is recorded as asked for by this user.
    resend_requested_by = models.CharField(max_length=150, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "webhook delivery"
        verbose_name_plural = "webhook deliveries"
        permissions = [("resend_webhookdelivery", "Can send webhook deliveries again")]
        constraints = [
            models.UniqueConstraint(fields=["event", "subscription"], name="webhook_delivery_once"),
            models.CheckConstraint(
                condition=Q(state=DeliveryState.PENDING, next_attempt_at__isnull=False)
                | ~Q(state=DeliveryState.PENDING),
                name="webhook_delivery_pending_is_scheduled",
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"], name="webhook_delivery_due", condition=Q(state=DeliveryState.PENDING)
            ),
            models.Index(fields=["subscription", "-created_at"], name="webhook_delivery_history"),
        ]

    def __str__(self) -> str:
        return f"{self.event.name} to {self.receiver_url}"

    @property
    def receiver_url(self) -> str:
        """Where it is sent, or was, once its subscription is deleted."""
        if self.subscription is None:
            return f"{self.former_subscription_url} (subscription deleted)"
        return self.subscription.url


class WebhookAttempt(models.Model):
    """One try at sending a delivery: when, how long, and what came back (or what went wrong)."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempts", db_index=False)
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    succeeded = models.BooleanField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=255, blank=True)
    # The start of the receiver's answer (at most WEBHOOK_RESPONSE_MAX_BYTES), for support.
    response_excerpt = models.TextField(blank=True)
    worker = models.CharField(max_length=255, blank=True)
    requested_by = models.CharField(max_length=150, blank=True, help_text="The admin user who asked for it.")

    class Meta:
        ordering = ["started_at", "id"]
        indexes = [models.Index(fields=["delivery", "started_at"], name="webhook_attempt_history")]

    def __str__(self) -> str:
        outcome = "ok" if self.succeeded else self.error or f"HTTP {self.status_code}"
        return f"#{self.number} {outcome}"
