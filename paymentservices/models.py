"""Payment services: a processor configured for one merchant account, made from a definition the server ships."""

from __future__ import annotations

import uuid

from django.db import models

from payments.json_column import JSONField
from payments.models import MerchantAccount, TimestampedModel
from paymentservices.processors import processor_get


def processor_name(definition_id: str) -> str:
    """A processor as people name it ("Stripe", "Mock card (sandbox)"); its id when this server no longer ships it."""
    processor = processor_get(definition_id)
    return processor.display_name if processor is not None else definition_id


class PaymentService(TimestampedModel):
    """One processor connection of a merchant account: which definition (connector), its credentials, where it
    stands in the account's routing order, and which currencies and countries it takes.

    Secret credential fields are sealed with the card vault's keys (`sealed_fields`, one ciphertext per field, bound
    to this row and field) and never rendered; the other fields are kept as given (`fields`).
    """

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.CASCADE, related_name="payment_services", db_index=False
    )
    definition_id = models.CharField("processor", max_length=50)
    display_name = models.CharField(max_length=200)
    # 1-based routing order among the account's services that are not deleted; kept contiguous by the services.
    position = models.PositiveIntegerField()
    active = models.BooleanField(default=True)
    accepted_currencies = JSONField(default=list)
    accepted_countries = JSONField(default=list)
    three_d_secure_enabled = models.BooleanField(default=False)
    payment_method_tokenization_enabled = models.BooleanField(default=False)
    network_tokens_enabled = models.BooleanField(default=False)
    open_loop = models.BooleanField(default=False)
    settlement_reporting_enabled = models.BooleanField(default=False)
    merchant_profile = JSONField(null=True, blank=True)
    # Retryable declines (`routing.RETRYABLE_DECLINES`) go on to the next eligible service. Upstream's PaymentService
    # has no such field, so it is set in the admin only and never answered by the API.
    cascade_retryable_declines = models.BooleanField("cascades retryable declines", default=False)
    # Non-secret credential fields, {key: value}.
    fields = JSONField(default=dict, blank=True)
    # Secret credential fields, {key: vault ciphertext}; `key_id` names the key they are all sealed with.
    sealed_fields = JSONField(default=dict, blank=True)
    key_id = models.CharField(max_length=32, blank=True, default="")
    # Deleted services leave routing at once but stay, with their credentials, for the captures, voids and refunds
    # of the payments they authorized.
    is_deleted = models.BooleanField("deleted", default=False)

    class Meta:
        ordering = ["merchant_account", "position", "created_at"]
        indexes = [
            models.Index(fields=["merchant_account", "is_deleted", "position"], name="payment_service_routing"),
            models.Index(fields=["key_id"], name="payment_service_key"),
        ]
        constraints = [models.CheckConstraint(condition=models.Q(position__gte=1), name="payment_service_position")]

    def __str__(self) -> str:
        # "Sandbox · Mock card (sandbox)", "Shop EU · Stripe": the processor by the name people know, not its id.
        processor = self.processor_name
        return self.display_name if processor == self.display_name else f"{self.display_name} · {processor}"

    @property
    def processor_name(self) -> str:
        return processor_name(self.definition_id)


class InboundNotification(models.Model):
    """A processor's notification to a service's `webhook_url`, recorded once by the processor's event id, so a
    resent notification is acknowledged and not handled twice."""

    id = models.BigAutoField(primary_key=True)
    payment_service = models.ForeignKey(
        PaymentService,
        on_delete=models.CASCADE,
        related_name="notifications",
        verbose_name="payment service",
        db_index=False,
    )
    event_id = models.CharField("processor's event ID", max_length=255)
    event_type = models.CharField("event type", max_length=255)
    # The processor's id of the object the event is about (a Stripe PaymentIntent id), for support.
    object_id = models.CharField("processor's object ID", max_length=255, blank=True, default="")
    # Whether a handler found what the event names (paymentservices.notifications): False is one to look into, None
    # an event no handler was concerned with.
    matched = models.BooleanField("matched", null=True, blank=True, default=None, db_index=True)
    received_at = models.DateTimeField("received", auto_now_add=True)

    class Meta:
        verbose_name = "processor notification"
        constraints = [
            models.UniqueConstraint(fields=["payment_service", "event_id"], name="inbound_notification_once")
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id}"


class PaymentServiceToken(TimestampedModel):
    """A stored card kept at one payment service's processor (`Processor.tokens`): later payments of the card to that
    service send the processor's token instead of the number (docs/stored-cards-at-processors.md).

    `failed` with `reason`: the processor would not keep the card, or gave no answer. `revoked_at`: the processor
    said the token no longer works (its notification, or a refusal naming it); the row stays, with why, and payments
    send the card again. At most one token of a method per service works at a time (a constraint decides between
    concurrent creates)."""

    class Status(models.TextChoices):
        # Upstream's `PaymentMethodStatus`: a token is kept or refused at once, so only these two are reached.
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    payment_method = models.ForeignKey(
        "paymentmethods.PaymentMethod", on_delete=models.CASCADE, related_name="service_tokens", db_index=False
    )
    payment_service = models.ForeignKey(
        PaymentService, on_delete=models.CASCADE, related_name="tokens", verbose_name="payment service"
    )
    status = models.CharField(max_length=16, choices=Status.choices)
    # The processor's id of the card, and of the customer it keeps it under (Stripe's); None when it refused.
    token = models.CharField(max_length=255, null=True, blank=True)
    customer = models.CharField(max_length=255, null=True, blank=True)
    # Why the processor refused the card, or revoked the token (its own words).
    reason = models.CharField(max_length=500, null=True, blank=True)
    revoked_at = models.DateTimeField("revoked", null=True, blank=True)

    class Meta:
        verbose_name = "payment service token"
        constraints = [
            models.UniqueConstraint(
                fields=["payment_method", "payment_service"],
                condition=models.Q(status="succeeded", revoked_at__isnull=True),
                name="payment_service_token_one_working",
            )
        ]
        indexes = [models.Index(fields=["payment_method", "-created_at"], name="payment_service_token_method")]

    def __str__(self) -> str:
        return f"{self.payment_service} · {self.state}"

    @property
    def label(self) -> str:
        """What the audit log names it by: the service whose processor holds it."""
        return f"{self.payment_service.display_name} token"

    @property
    def usable(self) -> bool:
        return self.status == self.Status.SUCCEEDED and self.revoked_at is None

    @property
    def state(self) -> str:
        """What the desk says of it: kept, not kept (the processor refused the card or gave no answer) or revoked."""
        if self.revoked_at is not None:
            return "revoked"
        return "kept" if self.status == self.Status.SUCCEEDED else "not kept"
