"""The wallets' session operations: Apple Pay's merchant session (validated by Apple) and Google Pay's session for a
registered website. Each refuses a website the wallet does not list."""

from __future__ import annotations

from typing import Any

from django.core import signing
from django.utils import timezone

from digitalwallets import apple, keys
from digitalwallets.models import DigitalWallet, DigitalWalletProvider, WalletKeyPurpose
from digitalwallets.selectors import digital_wallet_of
from digitalwallets.services import domain_clean
from payments.accounts.models import MerchantAccount
from payments.errors import DomainError, NotFound

GOOGLE_SESSION_SALT = "digitalwallets.google-session"
# Apple shows at most this many characters of the merchant's name on the payment sheet.
_APPLE_DISPLAY_NAME_LENGTH = 64


class WalletNotReady(DomainError):
    """The wallet lacks what the operation needs (a certificate Apple signed, a registered website)."""


def _wallet(merchant_account: MerchantAccount, provider: str) -> DigitalWallet:
    wallet = digital_wallet_of(merchant_account=merchant_account, provider=provider)
    if wallet is None:
        label = DigitalWalletProvider(provider).label
        raise NotFound(f"This merchant account has registered no {label} wallet (POST /digital-wallets).")
    return wallet


def _registered_domain(wallet: DigitalWallet, domain_name: str, *, pointer: str) -> str:
    domain = domain_clean(domain_name, pointer=pointer)
    if domain not in wallet.domain_names:
        raise WalletNotReady(
            f"'{domain}' is not a domain of the {wallet.get_provider_display()} wallet "
            "(POST /digital-wallets/{digital_wallet_id}/domains).",
            pointer=pointer,
        )
    return domain


def apple_pay_session_create(
    *, merchant_account: MerchantAccount, validation_url: str, domain_name: str
) -> dict[str, Any]:
    """Apple's merchant session for `domain_name`, asked of `validation_url` only when it is one of Apple's hosts and
    the domain is the wallet's; nothing is called otherwise."""
    if not apple.validation_url_allowed(validation_url):
        raise DomainError(
            "validation_url: not one of Apple Pay's merchant validation hosts (https only).", pointer="/validation_url"
        )
    wallet = _wallet(merchant_account, DigitalWalletProvider.APPLE)
    domain = _registered_domain(wallet, domain_name, pointer="/domain_name")
    identity = next(key for key in wallet.keys.all() if key.purpose == WalletKeyPurpose.APPLE_MERCHANT_IDENTITY)
    if identity.certificate is None or wallet.merchant_identifier is None:
        raise WalletNotReady(
            "The Apple Pay merchant identity certificate has not been uploaded yet "
            "(POST /digital-wallets/{digital_wallet_id}/certificates).",
            pointer="/validation_url",
        )
    if identity.certificate_expires_at is not None and identity.certificate_expires_at <= timezone.now():
        raise WalletNotReady(
            "The Apple Pay merchant identity certificate has expired: upload the one Apple signs next.",
            pointer="/validation_url",
        )
    display_name = wallet.merchant_display_name or wallet.merchant_name
    return apple.merchant_session(
        validation_url=validation_url,
        certificate_pem=identity.certificate,
        private_key=keys.key_private(identity),
        body={
            "merchantIdentifier": wallet.merchant_identifier,
            "displayName": display_name[:_APPLE_DISPLAY_NAME_LENGTH],
            "initiative": "web",
            "initiativeContext": domain,
        },
    )


def google_pay_session_create(*, merchant_account: MerchantAccount, origin_domain: str) -> dict[str, str]:
    """Google Pay's session for a website of the wallet: the merchant's id here, and a signed token naming the wallet
    and the website (what a payment from that page presents)."""
    wallet = _wallet(merchant_account, DigitalWalletProvider.GOOGLE)
    domain = _registered_domain(wallet, origin_domain, pointer="/origin_domain")
    token = signing.dumps({"wallet": str(wallet.pk), "domain": domain}, salt=GOOGLE_SESSION_SALT, compress=True)
    return {"gateway_merchant_id": merchant_account.id, "token": token}
