"""Stored payment methods: a buyer's card kept in the vault for the payments to come."""

import uuid

from django.db import models

from payments.accounts.models import MerchantAccount
from payments.timestamped import TimestampedModel
from payments.vault.models import VaultedCard


class PaymentMethodStatus(models.TextChoices):
    """Upstream's statuses; a stored card is usable as soon as it is stored, so only `succeeded` is reached."""

    PROCESSING = "processing"
    BUYER_APPROVAL_REQUIRED = "buyer_approval_required", "Buyer approval required"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    PAUSED = "paused"


class PaymentMethod(TimestampedModel):
    """A card kept for later payments, a buyer's or (as upstream allows) the merchant's with no buyer: the card itself
    is a `VaultedCard` (number sealed, never the security code); this row holds what the merchant sees and counts of
    its use.

    One card (by fingerprint) is one method per buyer, and one among an account's methods without a buyer: unique
    constraints decide between concurrent stores. Deleting the method deletes its vaulted card
    (`paymentmethods.signals`); a card the vault purges takes its method with it.
    """

    Status = PaymentMethodStatus

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.PROTECT, related_name="payment_methods", db_index=False
    )
    # None: stored with no buyer; only a caller free of any buyer (`buyers.access.UNRESTRICTED`) touches it.
    buyer = models.ForeignKey(
        "buyers.Buyer", on_delete=models.CASCADE, null=True, blank=True, related_name="payment_methods", db_index=False
    )
    card = models.OneToOneField(VaultedCard, on_delete=models.CASCADE, related_name="payment_method")
    # The card's keyed fingerprint, copied here so the database itself keeps one method per card and owner.
    fingerprint = models.CharField(max_length=64)
    external_identifier = models.CharField(max_length=200, null=True, blank=True)
    status = models.CharField(max_length=32, choices=PaymentMethodStatus.choices, default=PaymentMethodStatus.SUCCEEDED)
    usage_count = models.PositiveIntegerField(default=0)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # Customer-initiated uses only (the buyer present), as upstream counts them apart.
    cit_usage_count = models.PositiveIntegerField(default=0)
    cit_last_used_at = models.DateTimeField(null=True, blank=True)
    # Stored-credential references the merchant may keep with the card for its merchant-initiated payments.
    scheme_transaction_id = models.CharField(max_length=100, null=True, blank=True)
    scheme_transaction_id_scheme = models.CharField(max_length=32, null=True, blank=True)
    transaction_link_id = models.CharField(max_length=100, null=True, blank=True)
    # Set when a processor reported that the issuer replaced the card (the sandbox's test card does).
    has_replacement = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["buyer", "fingerprint"], name="payment_method_one_per_card_and_buyer"),
            # NULLs are distinct to the constraint above, so methods without a buyer need one of their own.
            models.UniqueConstraint(
                fields=["merchant_account", "fingerprint"],
                condition=models.Q(buyer__isnull=True),
                name="payment_method_one_per_card_without_buyer",
            ),
        ]
        indexes = [
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="payment_method_page"),
            models.Index(fields=["merchant_account", "external_identifier"], name="payment_method_external_id"),
        ]

    def __str__(self) -> str:
        return f"{self.card} ({self.buyer_id})"

    @property
    def expiration_date(self) -> str:
        """`MM/YY`, as upstream shows it."""
        return self.card.expiration_date
