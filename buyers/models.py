"""The Buyer resource."""

import uuid

from django.db import models
from django.db.models.functions import Lower

from payments.accounts.models import MerchantAccount
from payments.identifiers import base62
from payments.json_column import JSONField
from payments.timestamped import TimestampedModel


class Buyer(TimestampedModel):
    """A merchant's customer; `external_identifier` is the merchant's own id for them."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.PROTECT, related_name="buyers", db_index=False
    )
    display_name = models.CharField(max_length=200, null=True, blank=True)
    external_identifier = models.CharField(max_length=200, null=True, blank=True)
    account_number = models.CharField(max_length=200, null=True, blank=True)
    # Names, email, phone, address and tax id, validated by the API's serializers before they land here.
    billing_details = JSONField(null=True, blank=True)

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


class ShippingDetails(TimestampedModel):
    """One of a buyer's delivery addresses; deleted with the buyer. A transaction that uses it keeps its own copy."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    buyer = models.ForeignKey(Buyer, on_delete=models.CASCADE, related_name="shipping_details", db_index=False)
    first_name = models.CharField(max_length=255, null=True, blank=True)
    last_name = models.CharField(max_length=255, null=True, blank=True)
    email_address = models.CharField(max_length=320, null=True, blank=True)
    phone_number = models.CharField(max_length=16, null=True, blank=True)
    # Validated by the API's address serializer before it lands here.
    address = JSONField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "shipping details"
        indexes = [models.Index(fields=["buyer", "-created_at", "-id"], name="shipping_details_by_buyer")]

    def __str__(self) -> str:
        names = " ".join(name for name in (self.first_name, self.last_name) if name)
        return names or str(self.id)
