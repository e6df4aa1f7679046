"""Reads of digital wallets, scoped to one merchant account; `wallet_keys_for`, the one place private keys open."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from cryptography import x509
from django.db.models import Prefetch, QuerySet

from digitalwallets import keys
from digitalwallets.models import DigitalWallet, WalletKey, WalletKeyPurpose
from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import NotFound


def digital_wallet_list(*, merchant_account: MerchantAccount) -> QuerySet[DigitalWallet]:
    """The account's wallets, newest first, their key pairs read in one more query (the certificate counts)."""
    return (
        account_rows(DigitalWallet, merchant_account)
        .select_related("merchant_account")
        .prefetch_related(Prefetch("keys", queryset=WalletKey.objects.order_by("purpose")))
        .order_by("-created_at", "-id")
    )


def digital_wallet_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> DigitalWallet:
    """The account's wallet `id`; another account's, or a malformed id, is not found like a missing one."""
    try:
        key = uuid.UUID(str(id))
    except ValueError:
        raise NotFound("The digital wallet could not be found.") from None
    wallet = digital_wallet_list(merchant_account=merchant_account).filter(pk=key).first()
    if wallet is None:
        raise NotFound("The digital wallet could not be found.")
    return wallet


def digital_wallet_of(*, merchant_account: MerchantAccount, provider: str) -> DigitalWallet | None:
    """The account's wallet of `provider` (there is at most one), if it registered one."""
    return digital_wallet_list(merchant_account=merchant_account).filter(provider=provider).first()


def digital_wallets_paying(*, merchant_account: MerchantAccount) -> dict[str, DigitalWallet]:
    """The account's wallets whose tokens can be opened, by provider: registered, with the merchant ID they are bound
    to (Apple Pay's from its identity certificate, Google Pay's from its configuration). One query."""
    wallets = account_rows(DigitalWallet, merchant_account).filter(merchant_identifier__isnull=False)
    return {wallet.provider: wallet for wallet in wallets.exclude(merchant_identifier="")}


@dataclass(frozen=True)
class WalletKeys:
    """What opening a wallet's tokens needs: its merchant identifier and, by purpose, each private key (opened) and
    the certificate Apple signed for it (None until uploaded). Never log, store or render it."""

    provider: str
    merchant_identifier: str | None
    private_keys: dict[str, keys.PrivateKey] = field(repr=False)
    certificates: dict[str, x509.Certificate | None]


def wallet_keys_for(*, merchant_account: MerchantAccount, provider: str) -> WalletKeys | None:
    """The account's wallet of `provider` with its private keys opened, or None when it registered none."""
    wallet = digital_wallet_of(merchant_account=merchant_account, provider=provider)
    if wallet is None:
        return None
    stored = list(wallet.keys.all())
    return WalletKeys(
        provider=provider,
        merchant_identifier=wallet.merchant_identifier,
        private_keys={key.purpose: keys.key_private(key) for key in stored},
        certificates={
            key.purpose: None if key.certificate is None else keys.certificate_read(key.certificate) for key in stored
        },
    )


@dataclass(frozen=True)
class GooglePayDirect:
    """What Google's payment sheet needs to encrypt a token to the account itself (`DIRECT` tokenization): Google's
    merchant ID and the public half of the wallet's key, base64 DER. Both are public."""

    merchant_id: str
    public_key: str


def google_pay_direct_for(*, merchant_account: MerchantAccount) -> GooglePayDirect | None:
    """The account's Google Pay `DIRECT` parameters, or None when it has no Google Pay wallet with its merchant ID."""
    wallet = digital_wallet_of(merchant_account=merchant_account, provider="google")
    if wallet is None or not wallet.merchant_identifier:
        return None
    key = next(key for key in wallet.keys.all() if key.purpose == WalletKeyPurpose.GOOGLE_PAYMENT)
    return GooglePayDirect(merchant_id=wallet.merchant_identifier, public_key=key.public_key)
