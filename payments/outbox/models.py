"""The outbox's table: events written with the change that causes them."""

import uuid

from django.db import models

from payments.accounts.models import MerchantAccount


class OutboxEvent(models.Model):
    """A change a merchant may be told about, written in the same database transaction as the change itself.

    Resource services publish these through `payments.outbox`; consumers (webhook deliveries) read them after
    the commit, so a crash between the commit and any sending loses nothing. The row names its target by type
    and id only: this app knows no resource, and the resource app that registered the type renders it.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.CASCADE, related_name="outbox_events")
    name = models.CharField(max_length=64, help_text="What happened, e.g. transaction.captured.")
    target_type = models.CharField(max_length=64)
    target_id = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set once the consumers have taken the event (deliveries created); the sweep finds the rest.
    dispatched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "outbox event"
        indexes = [
            models.Index(fields=["created_at"], name="outbox_event_created"),
            # The admin's transaction timeline and the delivery search find a resource's events by its id.
            models.Index(fields=["target_id"], name="outbox_event_target"),
            models.Index(
                fields=["created_at"], name="outbox_event_undispatched", condition=models.Q(dispatched_at__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.target_type} {self.target_id}"
