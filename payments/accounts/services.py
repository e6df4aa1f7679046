"""Writes for merchant accounts and API keys; the admin and commands call these too."""

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.db import IntegrityError, transaction
from django.utils import timezone

from payments.accounts import keys
from payments.accounts.models import ApiKey, MerchantAccount, default_roles
from payments.accounts.roles import Role, exceeds, granted_scopes
from payments.accounts.selectors import api_key_publish, forget_merchant_account
from payments.errors import DomainError, DuplicateRecord, Forbidden
from payments.partial import UNCHANGED, Unchanged


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
def api_key_register(
    *,
    public_key_pem: str,
    merchant_account: MerchantAccount | None,
    display_name: str = "",
    roles: list[str] | None = None,
) -> ApiKey:
    """Store a public key under its RFC 7638 thumbprint with `roles`, else every role (the way in for the first key:
    the command), reaching `merchant_account` (None: every account); the algorithm is fixed by the key type. A key
    already stored is returned as it is."""
    public_key = keys.load_public_pem(public_key_pem)
    kid = keys.thumbprint(public_key)
    api_key, created = ApiKey.objects.get_or_create(
        kid=kid,
        defaults={
            "all_merchant_accounts": merchant_account is None,
            "algorithm": keys.algorithm_for(public_key),
            "public_key": public_key_pem,
            "display_name": display_name,
            "roles": roles if roles is not None else default_roles(),
        },
    )
    if created and merchant_account is not None:
        api_key.merchant_accounts.add(merchant_account)
    return api_key


@dataclass(frozen=True)
class GeneratedApiKey:
    api_key: ApiKey
    private_key_pem: str


def api_key_generate(*, merchant_account: MerchantAccount | None, display_name: str = "") -> GeneratedApiKey:
    """Generate an EC P-521 pair and keep only the public half; the caller must save the private PEM."""
    private_key, private_pem = keys.generate_private_key()
    api_key = api_key_register(
        public_key_pem=keys.public_pem(private_key), merchant_account=merchant_account, display_name=display_name
    )
    return GeneratedApiKey(api_key=api_key, private_key_pem=private_pem)


@transaction.atomic
def api_key_revoke(*, kid: str) -> ApiKey:
    """Deactivate the key; its tokens are refused at once, on every host (the shared cache is told on commit)."""
    api_key = ApiKey.objects.select_for_update().get(kid=kid)
    if api_key.is_active:
        api_key.is_active = False
        api_key.revoked_at = timezone.now()
        api_key.save(update_fields=["is_active", "revoked_at", "updated_at"])
    _publish_on_commit(api_key)
    return api_key


def _publish_on_commit(api_key: ApiKey | None, *, kid: str | None = None) -> None:
    """After the change commits, every host's next request sees the key as it now is (or gone)."""
    name = kid or (api_key.kid if api_key is not None else "")
    transaction.on_commit(lambda: api_key_publish(api_key, kid=name))


# The accounts a key reaches: a set of ids, or None for every account.
Reach = frozenset[str] | None


def _record_nothing(api_key: ApiKey, action: str, reach: Reach) -> None:
    """The default record of a change: none."""


@dataclass(frozen=True)
class KeyMaker:
    """Who asks for a key pair change: the caller's key and its power (its token's scopes that its roles grant, and
    the merchant accounts its key reaches, None for every account). Nothing it makes or changes may exceed that power.

    `record(api_key, action, reach)` is called inside the change's transaction, before it commits (`created`,
    `updated`, `deleted`), with the accounts the change concerns (an update: those the key reached and reaches):
    the caller's audit entry, kept above this package."""

    api_key_id: uuid.UUID
    name: str
    scopes: frozenset[str]
    merchant_account_ids: Reach
    record: Callable[[ApiKey, str, Reach], None] = _record_nothing


def reach_beyond(maker: KeyMaker, ids: Sequence[str] | None) -> None:
    """Refuse a reach wider than the maker's: every account (None), or an account the maker does not reach. Checked
    on ids alone, before any is looked up, so a key never learns which other accounts exist."""
    if maker.merchant_account_ids is None:
        return
    if ids is None or not set(ids) <= maker.merchant_account_ids:
        mine = ", ".join(f"'{id}'" for id in sorted(maker.merchant_account_ids))
        raise Forbidden(
            f"A key pair reaching merchant accounts {mine} may only make or keep key pairs reaching some of them.",
            pointer="/merchant_account_ids",
        )


def _check_power(maker: KeyMaker, *, roles: Sequence[str], reach: Reach, pointer: str = "/role_ids") -> None:
    """Refuse a key pair with more power than its maker's: a scope the maker lacks, or a wider reach."""
    beyond = exceeds(granted_scopes(roles), maker.scopes)
    if beyond:
        raise Forbidden(
            f"A key pair may not be given scopes its maker's token lacks: {', '.join(beyond)}.", pointer=pointer
        )
    reach_beyond(maker, None if reach is None else sorted(reach))


def _reach_of(merchant_accounts: Sequence[MerchantAccount] | None) -> Reach:
    return None if merchant_accounts is None else frozenset(account.pk for account in merchant_accounts)


@dataclass(frozen=True)
class NewKeyPair:
    api_key: ApiKey
    private_key_pem: str | None  # only when the server made the pair; shown once, never stored


def _generate(algorithm: str) -> tuple[str, str]:
    """A new pair, (private PEM, public PEM): EC P-521 for ES512 (what the SDK signs with), RSA 4096 for RS512."""
    if algorithm == ApiKey.Algorithm.RS512:
        private_key = rsa.generate_private_key(public_exponent=65537, key_size=4096)
        private_pem = private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode("ascii")
        return private_pem, keys.public_pem(private_key)
    ec_key, private_pem = keys.generate_private_key()
    return private_pem, keys.public_pem(ec_key)


@transaction.atomic
def api_key_pair_create(
    *,
    maker: KeyMaker,
    display_name: str,
    roles: Sequence[Role],
    merchant_accounts: Sequence[MerchantAccount] | None,
    algorithm: str = ApiKey.Algorithm.ES512,
    public_key_pem: str | None = None,
    active: bool = True,
) -> NewKeyPair:
    """Make a key pair no more powerful than its maker's, reaching `merchant_accounts` (None: every account); the
    server makes the pair unless given a public key."""
    slugs = [role.slug for role in roles]
    reach = _reach_of(merchant_accounts)
    _check_power(maker, roles=slugs, reach=reach)
    private_pem = None
    if public_key_pem is None:
        private_pem, public_key_pem = _generate(algorithm)
    try:
        public_key = keys.load_public_pem(public_key_pem)
        kid = keys.thumbprint(public_key)  # refuses an EC key on any curve but P-521
    except keys.InvalidKeyError as exc:
        raise DomainError(str(exc), pointer="/public_key") from None
    if keys.algorithm_for(public_key) != algorithm:
        raise DomainError("The public key is not a key of the algorithm asked for.", pointer="/algorithm")
    try:
        with transaction.atomic():
            api_key = ApiKey.objects.create(
                kid=kid,
                display_name=display_name,
                roles=slugs,
                all_merchant_accounts=merchant_accounts is None,
                algorithm=algorithm,
                public_key=public_key_pem,
                is_active=active,
                created_by_id=maker.api_key_id,
            )
    except IntegrityError:
        raise DuplicateRecord("This public key is already registered.", pointer="/public_key") from None
    api_key.merchant_accounts.set(merchant_accounts or [])
    maker.record(api_key, "created", reach)
    _publish_on_commit(api_key)
    return NewKeyPair(api_key=api_key, private_key_pem=private_pem)


@transaction.atomic
def api_key_pair_update(
    *,
    maker: KeyMaker,
    api_key: ApiKey,
    display_name: str | None = None,
    active: bool | None = None,
    roles: Sequence[Role] | None = None,
    merchant_accounts: Sequence[MerchantAccount] | Unchanged | None = UNCHANGED,
) -> ApiKey:
    """Rename, disable or re-enable, or change the roles or reach of a key no more powerful than its maker, never
    giving it more; a disabled key's tokens, or its tokens on an account it no longer reaches, are refused at once on
    every host. None (`UNCHANGED` for the accounts, where None is every account): unchanged."""
    api_key = ApiKey.objects.select_for_update().get(pk=api_key.pk)
    reached = api_key.merchant_account_ids
    _check_power(maker, roles=api_key.roles, reach=reached, pointer="/")
    if display_name is not None:
        api_key.display_name = display_name
    if roles is not None:
        api_key.roles = [role.slug for role in roles]
    reach = reached if isinstance(merchant_accounts, Unchanged) else _reach_of(merchant_accounts)
    _check_power(maker, roles=api_key.roles, reach=reach)
    if active is not None and active != api_key.is_active:
        api_key.is_active = active
        api_key.revoked_at = None if active else timezone.now()
    if not isinstance(merchant_accounts, Unchanged):
        api_key.all_merchant_accounts = merchant_accounts is None
        api_key.merchant_accounts.set(merchant_accounts or [])
    api_key.save()
    maker.record(api_key, "updated", None if reached is None or reach is None else reached | reach)
    _publish_on_commit(api_key)
    return api_key


@transaction.atomic
def api_key_pair_delete(*, maker: KeyMaker, api_key: ApiKey) -> None:
    """Delete a key no more powerful than its maker; its tokens are refused at once, on every host."""
    api_key = ApiKey.objects.select_for_update().get(pk=api_key.pk)
    reach = api_key.merchant_account_ids
    _check_power(maker, roles=api_key.roles, reach=reach, pointer="/")
    maker.record(api_key, "deleted", reach)
    kid = api_key.kid
    api_key.delete()
    _publish_on_commit(None, kid=kid)


def api_key_mark_used(*, api_key_id: uuid.UUID, at: datetime) -> None:
    """Record use without a write per request: at most one UPDATE a minute per key, race-free."""
    ApiKey.objects.filter(pk=api_key_id).exclude(last_used_at__gt=at - timedelta(minutes=1)).update(last_used_at=at)
