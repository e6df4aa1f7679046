"""The roots wallet tokens are verified against: Apple Root CA - G3 and Google's ECv2 root signing keys, pinned in
`data/` as published, each replaceable by a file named in settings (docs/wallet-tokens.md)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_der_public_key
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from payments.wallettokens import parsing
from payments.wallettokens.errors import MalformedToken

DATA = Path(__file__).resolve().parent / "data"
APPLE_ROOT_CA_G3 = DATA / "apple-root-ca-g3.pem"
GOOGLE_ROOT_SIGNING_KEYS = DATA / "google-root-signing-keys.json"
# Google's keys for its TEST environment, whose tokens carry test cards only; name this file to accept them.
GOOGLE_TEST_ROOT_SIGNING_KEYS = DATA / "google-test-root-signing-keys.json"

APPLE_ROOTS_SETTING = "WALLET_APPLE_PAY_ROOTS_FILE"
GOOGLE_ROOTS_SETTING = "WALLET_GOOGLE_PAY_ROOT_KEYS_FILE"


@dataclass(frozen=True)
class RootSigningKey:
    """One entry of Google's root signing keys list, as published (keyValue, protocolVersion, keyExpiration)."""

    public_key: ec.EllipticCurvePublicKey
    protocol_version: str
    expires_at_ms: int | None


def load_apple_roots(pem: bytes) -> tuple[x509.Certificate, ...]:
    """Every certificate of a PEM bundle."""
    certificates = tuple(x509.load_pem_x509_certificates(pem))
    if not certificates:
        raise ValueError("The Apple Pay roots file holds no certificate.")
    return certificates


def load_google_root_keys(document: str | bytes) -> tuple[RootSigningKey, ...]:
    """The keys of a document in the format Google publishes its root signing keys in."""
    keys = parsing.json_object(document, name="root signing keys").get("keys")
    if not isinstance(keys, list):
        raise MalformedToken("The root signing keys document has no keys list.")
    return tuple(_root_key(entry) for entry in keys)


def _root_key(entry: object) -> RootSigningKey:
    if not isinstance(entry, dict):
        raise MalformedToken("A root signing key is not an object.")
    try:
        public_key = load_der_public_key(parsing.b64(entry, "keyValue", name="rootSigningKey"))
    except (ValueError, UnsupportedAlgorithm) as error:
        raise MalformedToken("A root signing key's keyValue is not a public key.") from error
    if not isinstance(public_key, ec.EllipticCurvePublicKey):
        raise MalformedToken("A root signing key is not an elliptic curve key.")
    expiration = entry.get("keyExpiration")
    return RootSigningKey(
        public_key=public_key,
        protocol_version=parsing.text(entry, "protocolVersion", name="rootSigningKey"),
        expires_at_ms=None if expiration is None else parsing.millis(entry, "keyExpiration", name="rootSigningKey"),
    )


@cache
def apple_pay_roots() -> tuple[x509.Certificate, ...]:
    """The configured Apple Pay roots: the settings' file, or Apple Root CA - G3."""
    path = getattr(settings, APPLE_ROOTS_SETTING, "") or APPLE_ROOT_CA_G3
    return load_apple_roots(Path(path).read_bytes())


@cache
def google_pay_root_keys() -> tuple[RootSigningKey, ...]:
    """The configured Google Pay root signing keys: the settings' file, or Google's production keys."""
    path = getattr(settings, GOOGLE_ROOTS_SETTING, "") or GOOGLE_ROOT_SIGNING_KEYS
    return load_google_root_keys(Path(path).read_bytes())


@receiver(setting_changed)
def _drop_cached_roots(*, setting: str, **kwargs: object) -> None:
    if setting == APPLE_ROOTS_SETTING:
        apple_pay_roots.cache_clear()
    if setting == GOOGLE_ROOTS_SETTING:
        google_pay_root_keys.cache_clear()
