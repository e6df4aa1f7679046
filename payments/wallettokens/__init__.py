"""Wallet payment tokens (Apple Pay EC_v1, Google Pay ECv2) verified and decrypted on the merchant's own server.

Pure functions: the caller hands in the merchant's keys and identifiers, the roots to trust (the configured ones by
default) and the time; they return a `WalletPayment` or raise a `WalletTokenRefused` naming why. This package
knows no resource: the app that holds the merchant's wallet keys calls it. docs/wallet-tokens.md.
"""

from payments.wallettokens.apple import decrypt_apple_pay, public_key_hash
from payments.wallettokens.errors import (
    BadSignature,
    ExpiredToken,
    MalformedToken,
    OtherMerchant,
    ReplayedToken,
    TamperedCiphertext,
    UnsupportedToken,
    UntrustedSigner,
    WalletTokenRefused,
)
from payments.wallettokens.google import decrypt_google_pay, merchant_recipient_id
from payments.wallettokens.payment import AuthMethod, Wallet, WalletPayment
from payments.wallettokens.replay import refuse_replay, replay_digest

__all__ = [
    "AuthMethod",
    "BadSignature",
    "ExpiredToken",
    "MalformedToken",
    "OtherMerchant",
    "ReplayedToken",
    "TamperedCiphertext",
    "UnsupportedToken",
    "UntrustedSigner",
    "Wallet",
    "WalletPayment",
    "WalletTokenRefused",
    "decrypt_apple_pay",
    "decrypt_google_pay",
    "merchant_recipient_id",
    "public_key_hash",
    "refuse_replay",
    "replay_digest",
]
