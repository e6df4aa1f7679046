"""The checkout session: where a browser leaves card details that the merchant's server never sees."""

import uuid

from django.db import models

from payments.accounts.models import MerchantAccount
from payments.choices import PaymentIntent, PaymentSource
from payments.timestamped import TimestampedModel
from payments.vault.models import VaultedCard


class CheckoutSession(TimestampedModel):
    """Order details for a payment to come, and the card Secure Fields stored for it, until `expires_at`.

    A session past `expires_at` no longer exists as far as any caller can tell: reads treat it as missing
    and delete it, and `purge_expired` deletes the rest. Its card lives in the vault, never in this table.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.PROTECT, related_name="checkout_sessions")
    expires_at = models.DateTimeField(db_index=True)
    amount = models.PositiveIntegerField(null=True, blank=True)
    currency = models.CharField(max_length=3, null=True, blank=True)
    country = models.CharField(max_length=2, null=True, blank=True)
    # Validated by the API's serializers (payments.shapes.order) before they land here.
    cart_items = models.JSONField(null=True, blank=True)
    metadata = models.JSONField(null=True, blank=True)
    buyer = models.JSONField(null=True, blank=True)
    airline = models.JSONField(null=True, blank=True)
    payment_service_id = models.UUIDField(null=True, blank=True)
    # Carried to transactions created from this session.
    intent = models.CharField(max_length=16, choices=PaymentIntent.choices, null=True, blank=True)
    payment_source = models.CharField(max_length=16, choices=PaymentSource.choices, null=True, blank=True)
    merchant_initiated = models.BooleanField(null=True, blank=True)
    is_subsequent_payment = models.BooleanField(null=True, blank=True)
    # Set by Secure Fields; the vault purges the card no later than the session itself expires.
    card = models.OneToOneField(
        VaultedCard, null=True, blank=True, on_delete=models.SET_NULL, related_name="checkout_session"
    )
    postal_code = models.CharField(max_length=50, null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="checkout_session_page"),
        ]

    def __str__(self) -> str:
        return str(self.id)
