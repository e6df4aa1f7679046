"""Writes for merchant accounts and API keys; the admin and commands call these too."""

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from payments.accounts import keys
from payments.accounts.models import ApiKey, MerchantAccount
from payments.accounts.selectors import forget_api_key, forget_merchant_account
from payments.errors import DuplicateRecord


@transaction.atomic
def merchant_account_create(
    *, id: str, display_name: str = "", allowed_origins: list[str] | None = None, exists_ok: bool = True
) -> MerchantAccount:
    """Create the account. An existing id is returned unchanged (`exists_ok`, so commands are safe to run twice)
    or refused as a duplicate (the API)."""
    defaults = {"display_name": display_name or id, "allowed_origins": allowed_origins or []}
    if exists_ok:
        account, _ = MerchantAccount.objects.get_or_create(id=id, defaults=defaults)
        return account
    try:
        # A savepoint: the failed INSERT must not spoil the caller's transaction.
        with transaction.atomic():
            return MerchantAccount.objects.create(id=id, **defaults)
    except IntegrityError:
        raise DuplicateRecord(f"A merchant account with the id '{id}' already exists.", pointer="/id") from None


@transaction.atomic
def merchant_account_update(
    *, account: MerchantAccount, display_name: str | None = None, allowed_origins: list[str] | None = None
) -> MerchantAccount:
    """Rename the account or change the browser origins it allows (None: unchanged); the slug id never changes."""
    account = MerchantAccount.objects.select_for_update().get(pk=account.pk)
    if display_name is not None:
        account.display_name = display_name
    if allowed_origins is not None:
        account.allowed_origins = allowed_origins
    account.save(update_fields=["display_name", "allowed_origins", "updated_at"])
    transaction.on_commit(lambda: forget_merchant_account(account.id))
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
