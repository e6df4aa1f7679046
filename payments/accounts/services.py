"""Writes for merchant accounts and API keys; the admin and commands call these too."""

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from payments.accounts import keys
from payments.accounts.models import ApiKey, MerchantAccount
from payments.accounts.selectors import forget_api_key


@transaction.atomic
def merchant_account_create(
    *, id: str, display_name: str = "", allowed_origins: list[str] | None = None
) -> MerchantAccount:
    """Create the account, or return the existing one unchanged: safe to run twice."""
    account, _ = MerchantAccount.objects.get_or_create(
        id=id, defaults={"display_name": display_name or id, "allowed_origins": allowed_origins or []}
    )
    return account


@transaction.atomic
def merchant_account_update(
    *, account: MerchantAccount, display_name: str, allowed_origins: list[str]
) -> MerchantAccount:
    """Rename the account or change the browser origins it allows; the slug id never changes."""
    account.display_name = display_name
    account.allowed_origins = allowed_origins
    account.save(update_fields=["display_name", "allowed_origins", "updated_at"])
    return account


@transaction.atomic
def api_key_register(*, public_key_pem: str, merchant_account: MerchantAccount | None) -> ApiKey:
    """Store a public key under its RFC 7638 thumbprint; the algorithm is fixed by the key type."""
    public_key = keys.load_public_pem(public_key_pem)
    kid = keys.thumbprint(public_key)
    api_key, _ = ApiKey.objects.get_or_create(
        kid=kid,
        defaults={
            "merchant_account": merchant_account,
            "algorithm": keys.algorithm_for(public_key),
            "public_key": public_key_pem,
        },
    )
    return api_key


@dataclass(frozen=True)
class GeneratedApiKey:
    api_key: ApiKey
    private_key_pem: str


def api_key_generate(*, merchant_account: MerchantAccount | None) -> GeneratedApiKey:
    """Generate an EC P-521 pair and keep only the public half; the caller must save the private PEM."""
    private_key, private_pem = keys.generate_private_key()
    api_key = api_key_register(public_key_pem=keys.public_pem(private_key), merchant_account=merchant_account)
    return GeneratedApiKey(api_key=api_key, private_key_pem=private_pem)


@transaction.atomic
def api_key_revoke(*, kid: str) -> ApiKey:
    """Deactivate the key; its tokens are refused at once here and within API_KEY_CACHE_SECONDS elsewhere."""
    api_key = ApiKey.objects.select_for_update().get(kid=kid)
    if api_key.is_active:
        api_key.is_active = False
        api_key.revoked_at = timezone.now()
        api_key.save(update_fields=["is_active", "revoked_at"])
    transaction.on_commit(lambda: forget_api_key(kid))
    return api_key


def api_key_mark_used(*, api_key_id: uuid.UUID, at: datetime) -> None:
    """Record use without a write per request: at most one UPDATE a minute per key, race-free."""
    ApiKey.objects.filter(pk=api_key_id).exclude(last_used_at__gt=at - timedelta(minutes=1)).update(last_used_at=at)
