"""Merchant accounts and the API keys that authenticate their tokens."""

import uuid

from django.db import models


class MerchantAccount(models.Model):
    """A merchant's tenant: every resource belongs to exactly one."""

    id = models.SlugField(primary_key=True, max_length=255)
    display_name = models.CharField(max_length=255)
    # Browser origins (scheme://host[:port]) allowed to call the API from a page and to frame Secure Fields.
    allowed_origins = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.id


class ApiKey(models.Model):
    """The public half of a merchant's signing key; the private half never reaches the server."""

    class Algorithm(models.TextChoices):
        ES512 = "ES512", "ES512 (EC P-521)"
        RS512 = "RS512", "RS512 (RSA)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kid = models.CharField(max_length=64, unique=True, help_text="RFC 7638 SHA-256 thumbprint of the public key.")
    # Null means the key may act for every merchant account.
    merchant_account = models.ForeignKey(
        MerchantAccount, null=True, blank=True, on_delete=models.CASCADE, related_name="api_keys"
    )
    algorithm = models.CharField(max_length=8, choices=Algorithm.choices, default=Algorithm.ES512)
    public_key = models.TextField(help_text="PEM encoded public key.")
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API key"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.kid

    def can_act_for(self, merchant_account_id: str) -> bool:
        return self.merchant_account_id is None or self.merchant_account_id == merchant_account_id
