"""The audit log's table."""

import uuid

from django.db import models

from payments.accounts.models import MerchantAccount
from payments.timestamped import TimestampedModel


class AuditLogEntry(TimestampedModel):
    """Who changed what and when: one row per API write or staff action, written in the change's transaction.

    Rows are never updated; `created_at` is the time of the action. The actor and resource are copied, not
    referenced, so an entry outlives the key, user or object it names. `resource_name` is a display name or the
    resource type, never card data or a secret.
    """

    class Action(models.TextChoices):
        CREATED = "created"
        UPDATED = "updated"
        DELETED = "deleted"
        VOIDED = "voided"
        CANCELED = "canceled"
        CAPTURED = "captured"
        # Not upstream's (its actions have no increment): an authorization raised. Served as upstream's `updated`.
        INCREMENTED = "incremented", "Incremented the authorization of"
        # Not upstream's: an admin sign-in locked after too many failures. Never served (no merchant account).
        LOCKED_OUT = "locked-out", "Locked out"

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    # Null for a staff action on something of no merchant account (a staff user, a role): admin only.
    # Found through `audit_account_created` (merchant_account, created_at, id), which leads with it.
    merchant_account = models.ForeignKey(
        MerchantAccount, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    action = models.CharField(max_length=16, choices=Action.choices)
    resource_type = models.CharField(max_length=64)
    resource_id = models.CharField("resource ID", max_length=64)
    resource_name = models.CharField(max_length=200)
    user_id = models.UUIDField("user ID", null=True, blank=True)
    user_name = models.CharField(max_length=200)
    user_email = models.CharField(max_length=254, null=True, blank=True)
    user_is_staff = models.BooleanField("staff action", default=False)

    class Meta:
        verbose_name_plural = "audit log entries"
        indexes = [
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="audit_account_created"),
            # What the desk's search matches exactly (payments.admin.AuditLogEntryAdmin.get_search_results).
            models.Index(fields=["resource_id"], name="audit_resource_id"),
            models.Index(fields=["user_name"], name="audit_user_name"),
            models.Index(fields=["resource_name"], name="audit_resource_name"),
        ]

    def __str__(self) -> str:
        return f"{self.user_name} {self.action} {self.resource_type} {self.resource_id}"
