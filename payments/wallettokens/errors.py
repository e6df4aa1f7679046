"""Why a wallet token was refused: one exception per reason, each with a stable `reason` code the API layer maps
to a 4xx. Messages name the check that failed and never quote card data or key material."""

from __future__ import annotations

from typing import ClassVar


class WalletTokenRefused(Exception):
    """A wallet token this server will not pay with; `reason` says which check refused it."""

    reason: ClassVar[str] = "refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MalformedToken(WalletTokenRefused):
    """Not the published format: bad JSON, base64 or hex, a missing field, a value of the wrong type."""

    reason = "malformed"


class UnsupportedToken(WalletTokenRefused):
    """A well-formed token of a version or payment data type this server does not decrypt."""

    reason = "unsupported"


class BadSignature(WalletTokenRefused):
    """A signature does not verify: the token was altered, or (Google Pay) signed for another recipient."""

    reason = "bad_signature"


class UntrustedSigner(WalletTokenRefused):
    """The signer does not chain to a configured root, or a certificate lacks the wallet's marker OID."""

    reason = "untrusted_root"


class ExpiredToken(WalletTokenRefused):
    """Signed outside the allowed window, or a signing key or the message itself has expired."""

    reason = "expired"


class OtherMerchant(WalletTokenRefused):
    """Encrypted for a key this merchant does not hold (Apple Pay's publicKeyHash names another key)."""

    reason = "other_merchant"


class TamperedCiphertext(WalletTokenRefused):
    """The ciphertext does not authenticate under the merchant's keys: altered, or sealed for another key."""

    reason = "tampered"


class ReplayedToken(WalletTokenRefused):
    """A token whose transaction was already paid with on this server."""

    reason = "replayed"
