"""Digital wallets: the Apple Pay and Google Pay registrations of a merchant account, and the key pairs this server
makes for them. Private keys are sealed with the card vault's keys and never leave the server (docs/digital-wallets.md).
Only `digitalwallets.services` changes these rows."""

import uuid

from django.db import models

from payments.accounts.models import MerchantAccount
from payments.json_column import JSONField
from payments.timestamped import TimestampedModel


class DigitalWalletProvider(models.TextChoices):
    """Upstream's `DigitalWalletProvider`; this server registers Apple Pay and Google Pay only."""

    APPLE = "apple", "Apple Pay"
    GOOGLE = "google", "Google Pay"
    CLICK_TO_PAY = "click-to-pay", "Click to Pay"
    PAZE = "paze", "Paze"


class DigitalWallet(TimestampedModel):
    """One wallet a merchant account is registered for; one per provider and account."""

    Provider = DigitalWalletProvider

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.PROTECT, related_name="digital_wallets", db_index=False
    )
    provider = models.CharField("wallet", max_length=16, choices=DigitalWalletProvider.choices)
    merchant_name = models.CharField("business name", max_length=1024)
    merchant_display_name = models.CharField("name shown to buyers", max_length=1024, null=True, blank=True)
    merchant_url = models.CharField("website", max_length=2048, null=True, blank=True)
    merchant_country_code = models.CharField("country", max_length=2, null=True, blank=True)
    merchant_category_code = models.CharField("category code", max_length=4, null=True, blank=True)
    address = JSONField(null=True, blank=True)
    extra_configuration = JSONField(null=True, blank=True)
    # The websites the wallet's button may be shown on, lower case, in the order they were added.
    domain_names = JSONField("websites", default=list, blank=True)
    # Apple Pay: the merchant identifier Apple put in the merchant identity certificate (its subject's UID), which
    # merchant validation names; Google Pay: the merchant ID of Google's console (`extra_configuration.merchant_id`).
    merchant_identifier = models.CharField("merchant ID", max_length=255, null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["merchant_account", "provider"], name="digital_wallet_one_per_provider")
        ]

    def __str__(self) -> str:
        return f"{self.get_provider_display()} for {self.merchant_name}"


class WalletKeyPurpose(models.TextChoices):
    """What a key pair is for: Apple Pay's two certificates, and Google Pay's key."""

    APPLE_PAYMENT_PROCESSING = "apple-payment-processing", "Apple Pay payment processing"
    APPLE_MERCHANT_IDENTITY = "apple-merchant-identity", "Apple Pay merchant identity"
    GOOGLE_PAYMENT = "google-payment", "Google Pay payment"


class WalletKey(TimestampedModel):
    """A key pair this server made for a wallet: the public half, the certificate signing request and the certificate
    Apple signed are shown; the private half is sealed (`sealed_private_key`, with the vault key `key_id`)."""

    Purpose = WalletKeyPurpose

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    wallet = models.ForeignKey(DigitalWallet, on_delete=models.CASCADE, related_name="keys", db_index=False)
    purpose = models.CharField(max_length=32, choices=WalletKeyPurpose.choices)
    algorithm = models.CharField("key type", max_length=16)
    sealed_private_key = models.TextField(editable=False)
    key_id = models.CharField("encryption key", max_length=64, editable=False)
    # The public key as base64 DER SubjectPublicKeyInfo (what Google's console takes).
    public_key = models.TextField()
    csr = models.TextField("certificate signing request", null=True, blank=True)
    certificate = models.TextField(null=True, blank=True)
    certificate_expires_at = models.DateTimeField("certificate expires", null=True, blank=True)

    class Meta:
        ordering = ["purpose"]
        constraints = [models.UniqueConstraint(fields=["wallet", "purpose"], name="wallet_key_one_per_purpose")]

    def __str__(self) -> str:
        return self.get_purpose_display()
