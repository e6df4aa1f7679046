"""The Buyer resource."""

import uuid

from django.db import models
from django.db.models.functions import Lower

from payments.identifiers import base62
from payments.models import MerchantAccount, TimestampedModel


class Buyer(TimestampedModel):
    """A merchant's customer; `external_identifier` is the merchant's own id for them."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.PROTECT, related_name="buyers")
    display_name = models.CharField(max_length=200, null=True, blank=True)
    external_identifier = models.CharField(max_length=200, null=True, blank=True)
    account_number = models.CharField(max_length=200, null=True, blank=True)
    # Names, email, phone, address and tax id, validated by the API's serializers before they land here.
    billing_details = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["merchant_account", "external_identifier"],
                condition=models.Q(external_identifier__isnull=False),
                name="buyer_unique_external_identifier",
            ),
        ]
        indexes = [
            # Keyset pages: newest first within one merchant account.
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="buyer_page"),
            models.Index(Lower("display_name"), name="buyer_display_name_lower"),
            # Support staff search by external identifier across every account (docs/admin.md).
            models.Index(fields=["external_identifier"], name="buyer_external_identifier"),
        ]

    def __str__(self) -> str:
        return self.display_name or self.external_identifier or str(self.id)

    @property
    def reconciliation_id(self) -> str:
        return base62(self.id)

    @property
    def email_address(self) -> str | None:
        return (self.billing_details or {}).get("email_address")
