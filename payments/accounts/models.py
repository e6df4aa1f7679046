"""Merchant accounts and the API keys that authenticate their tokens."""

import uuid

from django.db import models

from payments.accounts.roles import Role, roles_of
from payments.json_column import JSONField


class MerchantAccount(models.Model):
    """A merchant's tenant: every resource belongs to exactly one."""

    id = models.SlugField("ID", primary_key=True, max_length=255)
    display_name = models.CharField(max_length=255)
    # Browser origins (scheme://host[:port]) allowed to call the API from a page and to frame Secure Fields.
    allowed_origins = JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.id


def default_roles() -> list[str]:
    """A key made without naming roles (the first key, by `manage.py create_api_key`) may do everything."""
    return ["administrator"]


class ApiKey(models.Model):
    """The public half of a merchant's signing key (upstream's API key pair); the private half is never stored.

    What a key may do is its roles' scopes (payments.accounts.roles), for the merchant accounts it reaches: every
    account (`all_merchant_accounts`), or those its `merchant_accounts` name (none: it acts for no account).
    """

    class Algorithm(models.TextChoices):
        ES512 = "ES512", "ES512 (EC P-521)"
        RS512 = "RS512", "RS512 (RSA)"

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    kid = models.CharField(
        "key ID", max_length=64, unique=True, help_text="RFC 7638 SHA-256 thumbprint of the public key."
    )
    display_name = models.CharField(max_length=200, blank=True, help_text="The name people gave the key.")
    # Role slugs (payments.accounts.roles.ROLES); a slug no role has any longer grants nothing.
    roles = JSONField(default=default_roles)
    # Every account, present and future; else only `merchant_accounts`. A flag, not an empty set, so that a key
    # whose accounts went away never comes to reach every account.
    all_merchant_accounts = models.BooleanField("every merchant account", default=False)
    merchant_accounts = models.ManyToManyField(
        MerchantAccount, through="ApiKeyMerchantAccount", blank=True, related_name="api_keys"
    )
    algorithm = models.CharField(max_length=8, choices=Algorithm.choices, default=Algorithm.ES512)
    public_key = models.TextField(help_text="PEM encoded public key.")
    is_active = models.BooleanField("active", default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Written at most once a minute per key (payments.accounts.services.api_key_mark_used), never per request.
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # The key whose token made this one over the API; null for keys made by a command or the desk.
    created_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        verbose_name = "API key"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.display_name or self.kid

    @property
    def name(self) -> str:
        """How people and the audit log call the key: its name, else its thumbprint."""
        return self.display_name or self.kid

    @property
    def algorithm_family(self) -> str:
        """Upstream's name of the key's algorithm: `ECDSA` (signed ES512) or `RSA` (signed RS512)."""
        return "RSA" if self.algorithm == self.Algorithm.RS512 else "ECDSA"

    @property
    def reach(self) -> list[MerchantAccount]:
        """The merchant accounts the key may act for, as upstream lists them: empty for every account."""
        return [] if self.all_merchant_accounts else list(self.merchant_accounts.all())

    @property
    def merchant_account_ids(self) -> frozenset[str] | None:
        """The ids of the accounts the key may act for; None for every account."""
        return None if self.all_merchant_accounts else frozenset(account.pk for account in self.merchant_accounts.all())

    @property
    def role_list(self) -> tuple[Role, ...]:
        return roles_of(self.roles)


class ApiKeyMerchantAccount(models.Model):
    """One merchant account an API key reaches. An account a key reaches is not deleted from under it (PROTECT):
    change or delete the key first."""

    api_key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="+", db_index=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.PROTECT, related_name="+")

    class Meta:
        verbose_name = "API key's merchant account"
        constraints = [
            models.UniqueConstraint(fields=["api_key", "merchant_account"], name="api_key_merchant_account_once")
        ]

    def __str__(self) -> str:
        # How the desk names what keeps an account from being deleted.
        return f"API key {self.api_key} reaches {self.merchant_account_id}"
