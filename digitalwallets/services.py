"""Writes of digital wallets: registration (with the key pairs it makes), changes, domains, and the certificates
Apple signs. The one place these rules live (docs/digital-wallets.md)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction

from digitalwallets import keys
from digitalwallets.models import DigitalWallet, DigitalWalletProvider, WalletKey, WalletKeyPurpose
from payments.accounts.models import MerchantAccount
from payments.errors import DomainError, DuplicateRecord, NotFound
from payments.partial import UNCHANGED, Unchanged, changed_fields
from payments.vault import crypto
from payments.vault.services import RotationBatch, sealed_rows_rotate_batch

# What this server registers, and the key pairs each wallet gets.
PURPOSES: dict[str, tuple[str, ...]] = {
    DigitalWalletProvider.APPLE: (WalletKeyPurpose.APPLE_PAYMENT_PROCESSING, WalletKeyPurpose.APPLE_MERCHANT_IDENTITY),
    DigitalWalletProvider.GOOGLE: (WalletKeyPurpose.GOOGLE_PAYMENT,),
}
# A domain as a browser names a website: letters, digits and hyphens in dot-separated labels, at least two of them.
_DOMAIN = re.compile(r"(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_GOOGLE_CONFIGURATION = frozenset({"merchant_id"})


class ProviderUnsupported(DomainError):
    """A wallet upstream knows and this server does not offer (Click to Pay, Paze)."""


def provider_require(provider: str, *, pointer: str = "/provider") -> None:
    """Apple Pay and Google Pay only; Click to Pay and Paze are refused by name."""
    if provider not in PURPOSES:
        label = DigitalWalletProvider(provider).label
        raise ProviderUnsupported(
            f"{label} is not supported by this server: it registers Apple Pay and Google Pay wallets.", pointer=pointer
        )


def domain_clean(domain_name: str, *, pointer: str) -> str:
    """A website's domain, lower case (`shop.example.com`): no scheme, port, path or trailing dot."""
    domain = domain_name.strip().lower()
    if not _DOMAIN.fullmatch(domain):
        raise DomainError(
            f"'{domain_name[:80]}' is not a domain name (write it as shop.example.com: no scheme, port or path).",
            pointer=pointer,
        )
    return domain


def _domains_clean(domain_names: Sequence[str]) -> list[str]:
    cleaned: list[str] = []
    for index, name in enumerate(domain_names):
        domain = domain_clean(name, pointer=f"/domain_names/{index}")
        if domain not in cleaned:
            cleaned.append(domain)
    return cleaned


def _extra_configuration_check(provider: str, configuration: dict[str, Any] | None) -> str | None:
    """Google Pay's merchant ID is its one provider-specific setting; Apple Pay has none (its merchant identifier
    comes from the certificate Apple signs). Answers the merchant identifier it gives."""
    if not configuration:
        return None
    if provider == DigitalWalletProvider.APPLE:
        raise DomainError(
            "extra_configuration: Apple Pay takes none (its merchant identifier comes from the merchant identity "
            "certificate).",
            pointer="/extra_configuration",
        )
    unknown = sorted(set(configuration) - _GOOGLE_CONFIGURATION)
    if unknown:
        raise DomainError(
            f"extra_configuration: '{unknown[0]}' is not a Google Pay setting (its one setting: merchant_id).",
            pointer=f"/extra_configuration/{unknown[0]}",
        )
    merchant_id = configuration.get("merchant_id")
    if not isinstance(merchant_id, str) or not 1 <= len(merchant_id) <= 255:
        raise DomainError(
            "extra_configuration: merchant_id must be Google's merchant ID, a string of 1 to 255 characters.",
            pointer="/extra_configuration/merchant_id",
        )
    return merchant_id


def _save(wallet: DigitalWallet) -> DigitalWallet:
    try:
        with transaction.atomic():
            wallet.save()
    except IntegrityError:
        raise DuplicateRecord(
            f"This merchant account already has a {wallet.get_provider_display()} wallet.", pointer="/provider"
        ) from None
    return wallet


@transaction.atomic
def digital_wallet_register(
    *,
    merchant_account: MerchantAccount,
    provider: str,
    merchant_name: str,
    accept_terms_and_conditions: bool,
    merchant_display_name: str | None = None,
    merchant_url: str | None = None,
    merchant_country_code: str | None = None,
    merchant_category_code: str | None = None,
    address: dict[str, Any] | None = None,
    extra_configuration: dict[str, Any] | None = None,
    domain_names: Sequence[str] = (),
) -> DigitalWallet:
    """Register the account's wallet of `provider` (one per provider: 409) and make its key pairs."""
    provider_require(provider)
    if not accept_terms_and_conditions:
        raise DomainError(
            f"accept_terms_and_conditions: the {DigitalWalletProvider(provider).label} terms must be accepted.",
            pointer="/accept_terms_and_conditions",
        )
    wallet = DigitalWallet(
        merchant_account=merchant_account,
        provider=provider,
        merchant_name=merchant_name,
        merchant_display_name=merchant_display_name,
        merchant_url=merchant_url,
        merchant_country_code=merchant_country_code,
        merchant_category_code=merchant_category_code,
        address=address,
        extra_configuration=extra_configuration,
        merchant_identifier=_extra_configuration_check(provider, extra_configuration),
        domain_names=_domains_clean(domain_names),
    )
    _save(wallet)
    for purpose in PURPOSES[provider]:
        key = WalletKey(wallet=wallet, purpose=purpose)
        keys.key_make(key, common_name=merchant_name)
        key.save(force_insert=True)
    return wallet


def _locked(wallet: DigitalWallet) -> DigitalWallet:
    return DigitalWallet.objects.select_for_update().select_related("merchant_account").get(pk=wallet.pk)


@transaction.atomic
def digital_wallet_update(
    *,
    wallet: DigitalWallet,
    merchant_name: str | Unchanged = UNCHANGED,
    merchant_display_name: str | Unchanged | None = UNCHANGED,
    merchant_url: str | Unchanged | None = UNCHANGED,
    merchant_country_code: str | Unchanged | None = UNCHANGED,
    merchant_category_code: str | Unchanged | None = UNCHANGED,
    address: dict[str, Any] | Unchanged | None = UNCHANGED,
    extra_configuration: dict[str, Any] | Unchanged | None = UNCHANGED,
    domain_names: Sequence[str] | Unchanged = UNCHANGED,
) -> DigitalWallet:
    """Change the fields given; `domain_names` replaces the list (upstream's deprecated way), the key pairs stay."""
    wallet = _locked(wallet)
    changes = changed_fields(
        merchant_name=merchant_name,
        merchant_display_name=merchant_display_name,
        merchant_url=merchant_url,
        merchant_country_code=merchant_country_code,
        merchant_category_code=merchant_category_code,
        address=address,
    )
    if not isinstance(domain_names, Unchanged):
        changes["domain_names"] = _domains_clean(domain_names)
    if not isinstance(extra_configuration, Unchanged):
        identifier = _extra_configuration_check(wallet.provider, extra_configuration)
        changes["extra_configuration"] = extra_configuration
        if wallet.provider == DigitalWalletProvider.GOOGLE:
            changes["merchant_identifier"] = identifier
    for name, value in changes.items():
        setattr(wallet, name, value)
    wallet.save()
    return wallet


@transaction.atomic
def digital_wallet_delete(*, wallet: DigitalWallet) -> None:
    """Remove the wallet and its key pairs: tokens sealed to them can no longer be opened."""
    DigitalWallet.objects.filter(pk=wallet.pk).delete()


@transaction.atomic
def digital_wallet_domain_add(*, wallet: DigitalWallet, domain_name: str) -> DigitalWallet:
    """Add a website the wallet may be used on; adding one it has changes nothing."""
    domain = domain_clean(domain_name, pointer="/domain_name")
    wallet = _locked(wallet)
    if domain not in wallet.domain_names:
        wallet.domain_names = [*wallet.domain_names, domain]
        wallet.save(update_fields=["domain_names", "updated_at"])
    return wallet


@transaction.atomic
def digital_wallet_domain_remove(*, wallet: DigitalWallet, domain_name: str) -> DigitalWallet:
    """Remove a website; one the wallet does not have is a 404 naming it."""
    domain = domain_clean(domain_name, pointer="/domain_name")
    wallet = _locked(wallet)
    if domain not in wallet.domain_names:
        raise NotFound(f"'{domain}' is not a domain of this wallet.", pointer="/domain_name")
    wallet.domain_names = [name for name in wallet.domain_names if name != domain]
    wallet.save(update_fields=["domain_names", "updated_at"])
    return wallet


@transaction.atomic
def digital_wallet_certificate_upload(*, wallet: DigitalWallet, certificate: str) -> WalletKey:
    """Keep a certificate Apple signed for one of the wallet's key pairs, found by its public key; a certificate of
    any other key is refused. The merchant identity certificate also gives the wallet its merchant identifier."""
    wallet = _locked(wallet)
    if wallet.provider != DigitalWalletProvider.APPLE:
        raise DomainError("Only Apple Pay wallets take certificates.", pointer="/certificate")
    parsed = keys.certificate_read(certificate)
    key = next((key for key in wallet.keys.all() if keys.certificate_matches(key, parsed)), None)
    if key is None:
        raise keys.CertificateRefused(
            "certificate: its public key is not one of this wallet's key pairs (make it from this wallet's "
            "certificate signing requests).",
            pointer="/certificate",
        )
    if key.purpose == WalletKeyPurpose.APPLE_MERCHANT_IDENTITY:
        identifier = keys.merchant_identifier(parsed)
        if identifier is None:
            raise keys.CertificateRefused(
                "certificate: a merchant identity certificate names the merchant identifier in its subject's UID; "
                "this one names none.",
                pointer="/certificate",
            )
        wallet.merchant_identifier = identifier
        wallet.save(update_fields=["merchant_identifier", "updated_at"])
    key.certificate = keys.certificate_pem(parsed)
    key.certificate_expires_at = parsed.not_valid_after_utc
    key.save(update_fields=["certificate", "certificate_expires_at", "updated_at"])
    return key


def wallet_keys_rotate_batch(*, batch_size: int, after: uuid.UUID | None = None) -> RotationBatch:
    """Re-seal under the current key up to `batch_size` private keys sealed under another, in id order after `after`."""
    return sealed_rows_rotate_batch(
        WalletKey.objects.exclude(key_id=crypto.current_key_id()),
        batch_size=batch_size,
        after=after,
        reseal=keys.key_reseal,
        fields=["sealed_private_key", "key_id"],
    )


def wallet_keys_count_stale() -> int:
    """How many wallet private keys are sealed under a key other than the current one."""
    return WalletKey.objects.exclude(key_id=crypto.current_key_id()).count()
