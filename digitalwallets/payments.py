"""A payment's wallet token opened with the merchant account's own wallet keys (docs/digital-wallets.md, "Payments"):
the decrypted card, or a 4xx naming why the token was refused."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from django.utils import timezone

from digitalwallets.models import DigitalWalletProvider, WalletKeyPurpose
from digitalwallets.selectors import WalletKeys, wallet_keys_for
from payments.accounts.models import MerchantAccount
from payments.errors import DomainError
from payments.wallettokens import (
    ReplayedToken,
    Wallet,
    WalletPayment,
    WalletTokenRefused,
    decrypt_apple_pay,
    decrypt_google_pay,
)

TOKEN_POINTER = "/payment_method/token"  # noqa: S105 - a JSON pointer, not a secret
METHOD_POINTER = "/payment_method/method"
# The provider whose registered wallet opens each wallet's tokens.
PROVIDERS = {Wallet.APPLE_PAY: DigitalWalletProvider.APPLE, Wallet.GOOGLE_PAY: DigitalWalletProvider.GOOGLE}
# Where each provider's wallet has the merchant identifier its tokens are bound to, for the refusal that lacks it.
_IDENTIFIER_SOURCE = {
    DigitalWalletProvider.APPLE: "upload the merchant identity certificate Apple signed (it names the merchant ID)",
    DigitalWalletProvider.GOOGLE: "set extra_configuration.merchant_id to the merchant ID of Google's console",
}


class WalletTokenNotAccepted(DomainError):
    """A wallet token this server will not pay with, at `/payment_method/token`: 400, or 409 for a token already
    paid with. The detail's `type` is `wallet_token_` and the refusal's reason (`expired`, `other_merchant`, ...)."""

    def __init__(self, refused: WalletTokenRefused) -> None:
        super().__init__(f"The wallet token was refused ({refused.reason}): {refused.message}", pointer=TOKEN_POINTER)
        self.status = 409 if isinstance(refused, ReplayedToken) else 400
        self.details[0]["type"] = f"wallet_token_{refused.reason}"


def wallet_token_open(
    *, merchant_account: MerchantAccount, wallet: Wallet, token: str | Mapping[str, Any]
) -> WalletPayment:
    """Verify and decrypt `token` with the keys of the account's wallet of its provider; refuses (4xx, nothing
    written) when the account has no such wallet or the token fails any check."""
    provider = PROVIDERS[wallet]
    keys = wallet_keys_for(merchant_account=merchant_account, provider=provider)
    if keys is None:
        raise DomainError(
            f"No {provider.label} wallet is registered for this merchant account (POST /digital-wallets).",
            pointer=METHOD_POINTER,
        )
    if not keys.merchant_identifier:
        raise DomainError(
            f"The {provider.label} wallet has no merchant ID yet: {_IDENTIFIER_SOURCE[provider]}.",
            pointer=METHOD_POINTER,
        )
    try:
        if wallet is Wallet.APPLE_PAY:
            return decrypt_apple_pay(
                _apple_payment_data(token),
                merchant_identifier=keys.merchant_identifier,
                processing_keys=_ec_keys(keys, WalletKeyPurpose.APPLE_PAYMENT_PROCESSING),
                now=timezone.now(),
            )
        return decrypt_google_pay(
            token,
            merchant_id=keys.merchant_identifier,
            private_keys=_ec_keys(keys, WalletKeyPurpose.GOOGLE_PAYMENT),
            now=timezone.now(),
        )
    except WalletTokenRefused as refused:
        raise WalletTokenNotAccepted(refused) from None


def _apple_payment_data(token: str | Mapping[str, Any]) -> str | Mapping[str, Any]:
    """The `paymentData` of Apple Pay JS's payment token (`{paymentData, paymentMethod, transactionIdentifier}`), or
    the token itself when the client sent `paymentData` alone."""
    if isinstance(token, Mapping) and isinstance(token.get("paymentData"), Mapping):
        payment_data: Mapping[str, Any] = token["paymentData"]
        return payment_data
    return token


def _ec_keys(keys: WalletKeys, purpose: str) -> list[ec.EllipticCurvePrivateKey]:
    """The wallet's EC private key for `purpose` (a wallet registered here always has it)."""
    key = keys.private_keys.get(purpose)
    return [key] if isinstance(key, ec.EllipticCurvePrivateKey) else []
