"""The checkout session: where a browser leaves card details that the merchant's server never sees."""

import uuid
from dataclasses import dataclass

from django.db import models

from payments.accounts.models import MerchantAccount
from payments.choices import PaymentIntent, PaymentSource
from payments.json_column import JSONField
from payments.timestamped import TimestampedModel
from payments.vault.models import VaultedCard, VaultedSecurityCode


@dataclass(frozen=True)
class HeldPaymentMethod:
    """What a session holds to pay with, as its answer shows it: a card Secure Fields left (no id), or a stored
    payment method (its id) and that method's card."""

    id: uuid.UUID | None
    card: VaultedCard


class CheckoutSession(TimestampedModel):
    """Order details for a payment to come, and what Secure Fields left for it to pay with, until `expires_at`: a
    card, or a stored payment method with the security code the buyer typed for it.

    A session past `expires_at` no longer exists as far as any caller can tell: reads treat it as missing
    and delete it, and `purge_expired` deletes the rest. Card data lives in the vault, never in this table.
    """

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.PROTECT, related_name="checkout_sessions", db_index=False
    )
    expires_at = models.DateTimeField(db_index=True)
    amount = models.PositiveIntegerField(null=True, blank=True)
    currency = models.CharField(max_length=3, null=True, blank=True)
    country = models.CharField(max_length=2, null=True, blank=True)
    # Validated by the API's serializers (payments.shapes.order) before they land here.
    cart_items = JSONField(null=True, blank=True)
    metadata = JSONField(null=True, blank=True)
    buyer = JSONField(null=True, blank=True)
    airline = JSONField(null=True, blank=True)
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
    # Set by Secure Fields' stored-method form instead of `card`: the stored payment method the buyer chose (its id
    # alone: checkout knows no stored methods), that method's card to show (the method's: never deleted by the
    # session), and the security code the buyer typed for it, sealed in the vault until the payment.
    payment_method_id = models.UUIDField(null=True, blank=True)
    stored_card = models.ForeignKey(VaultedCard, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    security_code = models.OneToOneField(
        VaultedSecurityCode, null=True, blank=True, on_delete=models.SET_NULL, related_name="checkout_session"
    )

    class Meta:
        indexes = [
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="checkout_session_page"),
        ]
        constraints = [
            # One way to pay at a time: a card left through Secure Fields, or a stored payment method.
            models.CheckConstraint(
                condition=models.Q(card__isnull=True) | models.Q(payment_method_id__isnull=True),
                name="checkout_session_card_or_payment_method",
            ),
            models.CheckConstraint(
                condition=models.Q(payment_method_id__isnull=False)
                | models.Q(stored_card__isnull=True, security_code__isnull=True),
                name="checkout_session_stored_card_with_its_method",
            ),
        ]

    def __str__(self) -> str:
        return str(self.id)

    @property
    def held_payment_method(self) -> HeldPaymentMethod | None:
        """The card or stored method a payment with the session would use, None when Secure Fields left none (or the
        stored method's card has gone with it)."""
        if self.card is not None:
            return HeldPaymentMethod(id=None, card=self.card)
        if self.payment_method_id is not None and self.stored_card is not None:
            return HeldPaymentMethod(id=self.payment_method_id, card=self.stored_card)
        return None
