"""The payment link: an order a merchant sends to a buyer by any channel, paid once on this server's page."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from payments.accounts.models import MerchantAccount
from payments.choices import PaymentIntent, PaymentSource
from payments.json_column import JSONField
from payments.timestamped import TimestampedModel


class PaymentLinkStatus(models.TextChoices):
    """Upstream's `PaymentLinkStatus`: `processing` while a buyer's payment is under way, `completed` once one
    succeeded, `expired` when its time ran out or the merchant expired it. Only an `active` link is payable."""

    ACTIVE = "active"
    PROCESSING = "processing"
    COMPLETED = "completed"
    EXPIRED = "expired"


class PaymentLink(TimestampedModel):
    """What the buyer is asked to pay and how the page looks. `status` is what was recorded; a link whose
    `expires_at` has passed is expired whatever the row says until the expiry job records it (`shown_status`)."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.PROTECT, related_name="payment_links", db_index=False
    )
    status = models.CharField(max_length=16, choices=PaymentLinkStatus.choices, default=PaymentLinkStatus.ACTIVE)
    expires_at = models.DateTimeField(null=True, blank=True)
    amount = models.PositiveIntegerField()
    currency = models.CharField(max_length=3)
    country = models.CharField(max_length=2)
    intent = models.CharField(max_length=16, choices=PaymentIntent.choices, default=PaymentIntent.AUTHORIZE)
    payment_source = models.CharField(max_length=16, choices=PaymentSource.choices, default=PaymentSource.ECOMMERCE)
    external_identifier = models.CharField(max_length=200, null=True, blank=True)
    locale = models.CharField(max_length=50, null=True, blank=True)
    return_url = models.URLField("return URL", max_length=2000, null=True, blank=True)
    # The page's branding, each checked by the API's serializers (paymentlinks.branding) before it lands here.
    merchant_name = models.CharField(max_length=100, null=True, blank=True)
    merchant_url = models.URLField("merchant URL", max_length=2000, null=True, blank=True)
    merchant_banner_url = models.URLField("merchant banner URL", max_length=2000, null=True, blank=True)
    merchant_color = models.CharField(max_length=7, null=True, blank=True)
    merchant_message = models.CharField(max_length=255, null=True, blank=True)
    merchant_terms_and_conditions_url = models.URLField(
        "merchant terms and conditions URL", max_length=2000, null=True, blank=True
    )
    merchant_favicon_url = models.URLField("merchant favicon URL", max_length=2000, null=True, blank=True)
    # Order details, validated by payments.shapes before they land here; carried to the link's transaction.
    cart_items = JSONField(null=True, blank=True)
    metadata = JSONField(null=True, blank=True)
    buyer = JSONField(null=True, blank=True)
    statement_descriptor = JSONField(null=True, blank=True)
    connection_options = JSONField(null=True, blank=True)
    # The one transaction that paid the link (set with `completed`), or the one under way (with `processing`).
    transaction_id = models.UUIDField(null=True, blank=True, unique=True)

    class Meta:
        indexes = [
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="payment_link_page"),
            # The expiry job's scan: active links with a deadline.
            models.Index(fields=["expires_at"], name="payment_link_expiry", condition=models.Q(status="active")),
        ]
        constraints = [
            # A paid link names its payment; an active one names none.
            models.CheckConstraint(
                condition=~models.Q(status__in=["completed", "processing"]) | models.Q(transaction_id__isnull=False),
                name="payment_link_paid_names_its_transaction",
            ),
        ]

    def __str__(self) -> str:
        return str(self.id)

    @property
    def shown_status(self) -> str:
        """The status a reader sees: an active link past its `expires_at` is expired already."""
        if (
            self.status == PaymentLinkStatus.ACTIVE
            and self.expires_at is not None
            and self.expires_at <= timezone.now()
        ):
            return PaymentLinkStatus.EXPIRED
        return self.status
