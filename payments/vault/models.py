"""The vault's table: sealed card data."""

import uuid

from django.db import models

from payments.accounts.models import MerchantAccount


class VaultedCard(models.Model):
    """A card number, and briefly its security code, sealed by `payments.vault.crypto`; only display data is in clear.

    Resources that take card data point at a row here instead of holding it themselves. Every
    row expires (`expires_at`), and its security code sooner (`security_code_expires_at`); `purge_expired`
    deletes what is past due and reads treat it as gone already.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.CASCADE, related_name="vaulted_cards", db_index=False
    )
    # `payments.vault.crypto` tokens bound to this row and field: `v1.<key id>.<nonce>.<ciphertext>`.
    encrypted_number = models.TextField(editable=False)
    encrypted_security_code = models.TextField(null=True, blank=True, editable=False)
    # The key both tokens are sealed with, so rotation finds stale rows with an index instead of a scan.
    key_id = models.CharField(max_length=32, editable=False)
    fingerprint = models.CharField(max_length=64, help_text="Keyed hash of the number.")
    scheme = models.CharField(max_length=32, null=True, blank=True)
    bin = models.CharField(max_length=8)
    last4 = models.CharField(max_length=4)
    # What the BIN table said of the card when it was stored (`payments.bins`), kept with it so every reader shows
    # the same facts without a lookup of its own; None where the table did not say.
    card_type = models.CharField(max_length=16, null=True, blank=True)
    country = models.CharField(max_length=2, null=True, blank=True)
    issuer_name = models.CharField(max_length=200, null=True, blank=True)
    expiration_month = models.PositiveSmallIntegerField()
    expiration_year = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)
    security_code_expires_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        # The account, the key and the fingerprint are indexed here rather than with `db_index`, which on PostgreSQL
        # adds a second index to a text column for `LIKE`: nothing searches these by their beginning, and every card
        # stored (each payment with a new card stores one) wrote both.
        indexes = [
            models.Index(fields=["merchant_account"], name="vaulted_card_account"),
            models.Index(fields=["key_id"], name="vaulted_card_key"),
            models.Index(fields=["fingerprint"], name="vaulted_card_fingerprint"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(expiration_month__gte=1, expiration_month__lte=12),
                name="vaulted_card_expiration_month",
            ),
            # A security code never sits in the vault without the deadline that removes it.
            models.CheckConstraint(
                condition=models.Q(encrypted_security_code__isnull=True, security_code_expires_at__isnull=True)
                | models.Q(encrypted_security_code__isnull=False, security_code_expires_at__isnull=False),
                name="vaulted_card_security_code_deadline",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.scheme or 'card'} {self.bin}…{self.last4}"

    @property
    def expiration_date(self) -> str:
        """`MM/YY`, as upstream shows a card's expiry."""
        return f"{self.expiration_month:02d}/{self.expiration_year % 100:02d}"


class VaultedSecurityCode(models.Model):
    """A security code the buyer typed for a card the vault keeps for later (a stored payment method's), sealed like a
    card's own code until the one payment it was typed for. The card's row never holds it, so no other payment with
    that card can use it; it goes at that payment's authorization, at `expires_at`, or with the card.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    card = models.ForeignKey(VaultedCard, on_delete=models.CASCADE, related_name="typed_security_codes")
    # A `payments.vault.crypto` token bound to this row: `v1.<key id>.<nonce>.<ciphertext>`.
    encrypted_security_code = models.TextField(editable=False)
    # The key it is sealed with, so rotation finds stale rows with an index.
    key_id = models.CharField(max_length=32, db_index=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"security code for {self.card}"
