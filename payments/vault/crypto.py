"""Authenticated encryption of card data and keyed hashes for lookups, with keys taken from Django settings.

Ciphertexts are ASCII tokens `v1.<key id>.<base64url nonce>.<base64url ciphertext and tag>` sealed with
AES-256-GCM. The version, key id and a caller-chosen context are bound as associated data, so a token only
decrypts for the row it was written for and names the key needed to open it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import secrets
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

ENCRYPTION_KEYS_SETTING = "CARD_ENCRYPTION_KEYS"
FINGERPRINT_KEY_SETTING = "CARD_FINGERPRINT_KEY"

FORMAT_VERSION = "v1"
KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
MIN_FINGERPRINT_KEY_BYTES = 32
DERIVED_KEY_BYTES = 32

# Key ids appear inside tokens, so they must not contain the "." separator or anything needing escaping.
_KEY_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
_KEY_ID_RULE = "1-32 characters from A-Z, a-z, 0-9, '_' and '-'"
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
_HKDF_INFO_PREFIX = b"payments.vault.keyed-hash:"


class VaultError(Exception):
    """Misconfigured keys or an untrustworthy ciphertext; the message never contains plaintext or key material."""


@dataclass(frozen=True, eq=False)
class _Keyring:
    """Parsed CARD_ENCRYPTION_KEYS: every configured cipher by key id, and which one encrypts."""

    current_id: str
    ciphers: dict[str, AESGCM]


@dataclass(frozen=True)
class _Token:
    """The parts of a well-formed ciphertext token."""

    key_id: str
    nonce: bytes
    sealed: bytes


def _b64encode(raw: bytes) -> str:
    """Return unpadded base64url text for `raw`."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes | None:
    """Return the bytes of canonical unpadded base64url `text`, or None if it is anything else."""
    if not _BASE64URL.fullmatch(text):
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error:
        return None
    # Canonical spellings only, so each ciphertext has exactly one textual form.
    return raw if _b64encode(raw) == text else None


def _parse_key_spec(spec: object, index: int) -> tuple[str, bytes]:
    """Return (key id, key) for one `<key_id>:<base64url key>` entry; errors name the entry's index, never its value."""
    where = f"{ENCRYPTION_KEYS_SETTING}[{index}]"
    if not isinstance(spec, str) or spec.count(":") != 1:
        raise VaultError(f"{where} must look like '<key_id>:<base64url key>'.")
    key_id, _, encoded = spec.partition(":")
    if not _KEY_ID.fullmatch(key_id):
        raise VaultError(f"{where} has an invalid key id; use {_KEY_ID_RULE}.")
    # Padding is tolerated here because keys are often produced by tools that add it.
    key = _b64decode(encoded.rstrip("="))
    if key is None or len(key) != KEY_BYTES:
        raise VaultError(f"{where} must hold a base64url-encoded {KEY_BYTES}-byte key.")
    return key_id, key


@lru_cache(maxsize=1)
def _keyring() -> _Keyring:
    """Return the parsed encryption keyring; cached until the setting changes."""
    specs = getattr(settings, ENCRYPTION_KEYS_SETTING, None)
    if specs is None:
        raise VaultError(f"{ENCRYPTION_KEYS_SETTING} is not configured.")
    if not isinstance(specs, list | tuple):
        raise VaultError(f"{ENCRYPTION_KEYS_SETTING} must be a list of '<key_id>:<base64url key>' strings.")
    if not specs:
        raise VaultError(f"{ENCRYPTION_KEYS_SETTING} must contain at least one key.")
    ciphers: dict[str, AESGCM] = {}
    for index, spec in enumerate(specs):
        key_id, key = _parse_key_spec(spec, index)
        if key_id in ciphers:
            raise VaultError(f"{ENCRYPTION_KEYS_SETTING} lists key id {key_id!r} more than once.")
        ciphers[key_id] = AESGCM(key)
    return _Keyring(current_id=next(iter(ciphers)), ciphers=ciphers)


@lru_cache(maxsize=1)
def _fingerprint_key() -> bytes:
    """Return the decoded fingerprint key; cached until the setting changes."""
    encoded = getattr(settings, FINGERPRINT_KEY_SETTING, None)
    if encoded is None or encoded == "":
        raise VaultError(f"{FINGERPRINT_KEY_SETTING} is not configured.")
    key = _b64decode(encoded.rstrip("=")) if isinstance(encoded, str) else None
    if key is None or len(key) < MIN_FINGERPRINT_KEY_BYTES:
        raise VaultError(f"{FINGERPRINT_KEY_SETTING} must be a base64url-encoded key of at least 32 bytes.")
    return key


@lru_cache(maxsize=64)
def _derived_key(purpose: str) -> bytes:
    """Return the HMAC key for `purpose`, independent of the fingerprint key and of every other purpose."""
    hkdf = HKDF(
        algorithm=hashes.SHA256(),
        length=DERIVED_KEY_BYTES,
        salt=None,
        info=_HKDF_INFO_PREFIX + purpose.encode("utf-8"),
    )
    return hkdf.derive(_fingerprint_key())


@receiver(setting_changed)
def _drop_cached_keys(*, setting: str, **kwargs: Any) -> None:
    """Forget parsed keys whenever a setting they were parsed from changes."""
    if setting == ENCRYPTION_KEYS_SETTING:
        _keyring.cache_clear()
    elif setting == FINGERPRINT_KEY_SETTING:
        _fingerprint_key.cache_clear()
        _derived_key.cache_clear()


def _require_non_empty(value: object, name: str) -> None:
    """Raise ValueError unless `value` is a non-empty string, since an empty binding would bind nothing."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string.")


def _associated_data(key_id: str, context: str) -> bytes:
    """Return the bytes authenticated alongside a ciphertext."""
    # Version and key id cannot contain NUL, so this joining is unambiguous whatever the context holds.
    return "\x00".join((FORMAT_VERSION, key_id, context)).encode("utf-8")


def _parse_token(token: str) -> _Token:
    """Return the parts of `token`, raising VaultError if it is not a well-formed current-version token."""
    parts = token.split(".") if isinstance(token, str) else []
    if len(parts) != 4 or not _KEY_ID.fullmatch(parts[1]):
        raise VaultError("Ciphertext is malformed.")
    if parts[0] != FORMAT_VERSION:
        raise VaultError("Ciphertext version is not supported.")
    nonce, sealed = _b64decode(parts[2]), _b64decode(parts[3])
    if nonce is None or len(nonce) != NONCE_BYTES or sealed is None or len(sealed) < TAG_BYTES:
        raise VaultError("Ciphertext is malformed.")
    return _Token(key_id=parts[1], nonce=nonce, sealed=sealed)


def encrypt(plaintext: str, *, context: str) -> str:
    """Return a token that decrypts to `plaintext` only with the same `context` while its key stays configured."""
    if not isinstance(plaintext, str):
        raise TypeError("plaintext must be a str.")
    _require_non_empty(context, "context")
    keyring = _keyring()
    key_id = keyring.current_id
    # Random 96-bit nonces are safe for far more messages than one key will ever seal here.
    nonce = os.urandom(NONCE_BYTES)
    sealed = keyring.ciphers[key_id].encrypt(nonce, plaintext.encode("utf-8"), _associated_data(key_id, context))
    return ".".join((FORMAT_VERSION, key_id, _b64encode(nonce), _b64encode(sealed)))


def decrypt(token: str, *, context: str) -> str:
    """Return the plaintext of `token`, or raise VaultError unless it is authentic for exactly this `context`."""
    _require_non_empty(context, "context")
    parsed = _parse_token(token)
    cipher = _keyring().ciphers.get(parsed.key_id)
    if cipher is None:
        raise VaultError(f"Ciphertext uses unknown key id {parsed.key_id!r}.")
    try:
        plaintext = cipher.decrypt(parsed.nonce, parsed.sealed, _associated_data(parsed.key_id, context))
    except InvalidTag:
        raise VaultError("Ciphertext failed authentication.") from None
    return plaintext.decode("utf-8")


def key_id_of(token: str) -> str:
    """Return the id of the key `token` names, without checking that the token is authentic."""
    return _parse_token(token).key_id


def current_key_id() -> str:
    """Return the id of the key new ciphertexts are sealed with."""
    return _keyring().current_id


def needs_rotation(token: str) -> bool:
    """Return True when `token` names a key other than the current one, so it should be re-encrypted."""
    return key_id_of(token) != current_key_id()


def generate_key_spec(key_id: str | None = None) -> str:
    """Return a new random 256-bit key as a `<key_id>:<base64url key>` entry for CARD_ENCRYPTION_KEYS."""
    if key_id is None:
        key_id = f"k{secrets.token_hex(4)}"
    elif not isinstance(key_id, str) or not _KEY_ID.fullmatch(key_id):
        raise VaultError(f"Key id must be {_KEY_ID_RULE}.")
    return f"{key_id}:{_b64encode(AESGCM.generate_key(bit_length=KEY_BYTES * 8))}"


def encryption_keys_problem() -> str | None:
    """Why CARD_ENCRYPTION_KEYS cannot seal or open card data, in words that never quote a key; None when it can."""
    try:
        _keyring()
    except VaultError as exc:
        return str(exc)
    return None


def fingerprint_key_problem() -> str | None:
    """Why CARD_FINGERPRINT_KEY cannot key a hash, in words that never quote the key; None when it can."""
    try:
        _fingerprint_key()
    except VaultError as exc:
        return str(exc)
    return None


_PROBE_CONTEXT = "vault-probe"


def vault_round_trip() -> None:
    """Seal and open a random probe and key a hash of it with the configured keys; VaultError when any step fails.

    What every card payment needs first, at the cost of one AES-GCM seal and open and one HMAC.
    """
    probe = secrets.token_urlsafe(12)
    if decrypt(encrypt(probe, context=_PROBE_CONTEXT), context=_PROBE_CONTEXT) != probe:
        raise VaultError("A sealed probe did not open to what was sealed.")
    keyed_hash(probe, purpose=_PROBE_CONTEXT)


def _hmac_b64(key: bytes, value: str) -> str:
    """Return HMAC-SHA256 of `value` under `key` as unpadded base64url."""
    return _b64encode(hmac.new(key, value.encode("utf-8"), hashlib.sha256).digest())


def fingerprint(number: str) -> str:
    """Return a deterministic digest of `number` that cannot be computed or reversed without CARD_FINGERPRINT_KEY."""
    if not isinstance(number, str):
        raise TypeError("number must be a str.")
    return _hmac_b64(_fingerprint_key(), number)


def keyed_hash(value: str, *, purpose: str) -> str:
    """Return a deterministic digest of `value` under a key derived for `purpose` alone."""
    if not isinstance(value, str):
        raise TypeError("value must be a str.")
    _require_non_empty(purpose, "purpose")
    return _hmac_b64(_derived_key(purpose), value)


def keyed_hash_matches(value: str, expected: str, *, purpose: str) -> bool:
    """Return True when `expected` is the keyed hash of `value` for `purpose`, comparing in constant time."""
    return hmac.compare_digest(keyed_hash(value, purpose=purpose).encode("ascii"), expected.encode("utf-8"))


def derived_secret(value: str, *, purpose: str) -> bytes:
    """Return 64 secret bytes for `value` under a key derived for `purpose` alone: the same on every host, never
    stored (HMAC-SHA512, so a signing key made from it has more than 256 bits of secret)."""
    _require_non_empty(purpose, "purpose")
    return hmac.new(_derived_key(purpose), value.encode("utf-8"), hashlib.sha512).digest()
