"""Payouts: money a merchant sends to a card (a seller's earnings, a player's winnings), through a payment service
whose processor can pay out (`paymentservices.processors.paying_out`). Only `payouts.services` changes these rows."""

import uuid

from django.db import models

from payments.accounts.models import MerchantAccount
from payments.json_column import JSONField
from payments.money import format_money
from payments.timestamped import TimestampedModel


class PayoutStatus(models.TextChoices):
    """Upstream's `PayoutStatus`. `pending`: asked of the processor, its answer not recorded yet (or not decided
    there yet); the recovery job settles it (docs/payouts.md)."""

    PENDING = "pending"
    SUCCEEDED = "succeeded"
    DECLINED = "declined"
    FAILED = "failed"


class PayoutCategory(models.TextChoices):
    """Upstream's `PayoutCategory`."""

    ONLINE_GAMBLING = "online_gambling", "Online gambling"


class Payout(TimestampedModel):
    """One payout to a card. The card is shown masked (never the number); a card given once stays sealed in the vault
    (`card`) only until the payout is decided, since recovery may have to ask the processor again with it."""

    Status = PayoutStatus

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.PROTECT, related_name="payouts", db_index=False
    )
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=16, choices=PayoutStatus.choices, default=PayoutStatus.PENDING)
    category = models.CharField(max_length=32, choices=PayoutCategory.choices, null=True, blank=True)
    external_identifier = models.CharField(max_length=200, null=True, blank=True)
    # Who the money comes from, as upstream's `PayoutMerchant` was sent.
    merchant = JSONField(null=True, blank=True)

    # The buyer as it was when the payout was made (a stored buyer, or a guest's details); the link is cut if the
    # buyer is deleted.
    buyer = models.ForeignKey("buyers.Buyer", null=True, blank=True, on_delete=models.SET_NULL, related_name="payouts")
    buyer_details = JSONField(null=True, blank=True)

    payment_service = models.ForeignKey(
        "paymentservices.PaymentService", on_delete=models.PROTECT, related_name="payouts"
    )
    # The processor's id of the payout, once it answered.
    payment_service_payout_id = models.CharField("processor's payout ID", max_length=200, null=True, blank=True)
    # Upstream's error code when declined or failed, and the processor's own words (the desk shows them).
    error_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_description = models.CharField(max_length=255, null=True, blank=True)
    # How many times the processor was asked (the first call, then recovery's): each under the same reference, so
    # never more than one payout at the processor.
    attempts = models.PositiveIntegerField(default=0)

    # The card, masked, and the stored payment method it came from (when it did).
    payment_method = models.ForeignKey(
        "paymentmethods.PaymentMethod", null=True, blank=True, on_delete=models.SET_NULL, related_name="payouts"
    )
    card = models.ForeignKey(
        "payments.VaultedCard", null=True, blank=True, on_delete=models.SET_NULL, related_name="payouts"
    )
    card_scheme = models.CharField(max_length=32, null=True, blank=True)
    card_bin = models.CharField(max_length=8, null=True, blank=True)
    card_last4 = models.CharField(max_length=4, null=True, blank=True)
    card_expiration_date = models.CharField(max_length=5, null=True, blank=True)
    card_fingerprint = models.CharField(max_length=128, null=True, blank=True)
    # What the BIN table said of the card when the payout was made (the vaulted card's facts, copied).
    card_type = models.CharField(max_length=16, null=True, blank=True)
    card_country = models.CharField(max_length=2, null=True, blank=True)
    card_issuer_name = models.CharField(max_length=200, null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        # Who may make a payout from the desk (the Payments operator role; payouts.apps).
        permissions = [("pay_out", "Can make a payout to a stored card")]
        indexes = [
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="payout_list"),
            models.Index(fields=["status", "updated_at"], name="payout_pending"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(amount__gte=0) & models.Q(amount__lte=99999999), name="payout_amount_range"
            ),
        ]

    def __str__(self) -> str:
        return f"Payout {format_money(self.amount, self.currency)} ({self.status})"


class PayoutAccountLimit(TimestampedModel):
    """The largest payout a merchant account allows itself, in minor units of the payout's currency, set on the
    desk (the merchant account's page); the server's limits stay the ceiling (`payouts.services.payout_check`). No
    row: the server's limits alone."""

    merchant_account = models.OneToOneField(
        MerchantAccount, primary_key=True, on_delete=models.CASCADE, related_name="payout_limit"
    )
    max_amount = models.BigIntegerField("payout limit")

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(max_amount__gte=1), name="payout_limit_positive")]

    def __str__(self) -> str:
        return f"Payout limit of {self.merchant_account_id}: {self.max_amount}"
