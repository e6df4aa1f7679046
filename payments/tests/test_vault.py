from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from django.test import override_settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from payments.vault import crypto
from payments.vault.crypto import (
    VaultError,
    current_key_id,
    decrypt,
    encrypt,
    fingerprint,
    generate_key_spec,
    key_id_of,
    keyed_hash,
    keyed_hash_matches,
    needs_rotation,
)

if TYPE_CHECKING:
    # Only needed for annotations; older pytest-django releases do not export this name.
    from pytest_django import Settings


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


KEY_A_MATERIAL = b64(bytes([0xA1]) * 32)
KEY_B_MATERIAL = b64(bytes([0xB2]) * 32)
KEY_A = f"key-a:{KEY_A_MATERIAL}"
KEY_B = f"key-b:{KEY_B_MATERIAL}"
FINGERPRINT_KEY_BYTES = bytes(range(32))
FINGERPRINT_KEY = b64(FINGERPRINT_KEY_BYTES)
CONTEXT = "checkout-session:0f8fad5b-d9cb-469f-a165-70867728950e"
PAN = "4111111111111111"
TOKEN_PATTERN = re.compile(r"v1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]+)")

# The keyring stays the same for every generated example, so sharing the function-scoped settings is sound.
shared_settings = hypothesis_settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(autouse=True)
def vault_keys(settings: Settings) -> Settings:
    settings.CARD_ENCRYPTION_KEYS = [KEY_A]
    settings.CARD_FINGERPRINT_KEY = FINGERPRINT_KEY
    return settings


def rebuild(
    token: str,
    *,
    version: str | None = None,
    key_id: str | None = None,
    nonce: bytes | None = None,
    sealed: bytes | None = None,
) -> str:
    """Reassemble a token with some parts replaced, keeping its encoding canonical."""
    old_version, old_key_id, old_nonce, old_sealed = token.split(".")
    return ".".join(
        (
            old_version if version is None else version,
            old_key_id if key_id is None else key_id,
            old_nonce if nonce is None else b64(nonce),
            old_sealed if sealed is None else b64(sealed),
        )
    )


def flip_first_bit(raw: bytes) -> bytes:
    return bytes([raw[0] ^ 1]) + raw[1:]


class TestRoundTrip:
    @pytest.mark.parametrize(
        "plaintext",
        [
            pytest.param(PAN, id="card-number"),
            pytest.param("123", id="security-code"),
            pytest.param("", id="empty"),
            pytest.param("caf\u00e9 \u20ac \U0001f4b3", id="non-ascii"),
            pytest.param("x" * 10_000, id="long"),
        ],
    )
    def test_decrypt_returns_plaintext(self, plaintext: str) -> None:
        assert decrypt(encrypt(plaintext, context=CONTEXT), context=CONTEXT) == plaintext

    @shared_settings
    @given(plaintext=st.text(), context=st.text(min_size=1))
    def test_any_text_round_trips(self, vault_keys: Settings, plaintext: str, context: str) -> None:
        assert decrypt(encrypt(plaintext, context=context), context=context) == plaintext

    def test_token_format(self) -> None:
        token = encrypt(PAN, context=CONTEXT)
        match = TOKEN_PATTERN.fullmatch(token)
        assert match is not None
        assert match[1] == "key-a"
        assert len(unb64(match[2])) == 12
        # AES-GCM adds a 16-byte tag and no padding.
        assert len(unb64(match[3])) == len(PAN) + 16
        assert token.isascii()

    def test_token_does_not_contain_plaintext(self) -> None:
        assert PAN not in encrypt(PAN, context=CONTEXT)

    def test_each_encryption_uses_a_fresh_nonce(self) -> None:
        tokens = {encrypt(PAN, context=CONTEXT) for _ in range(50)}
        assert len(tokens) == 50
        assert len({token.split(".")[2] for token in tokens}) == 50

    def test_plaintext_must_be_text(self) -> None:
        with pytest.raises(TypeError):
            encrypt(PAN.encode(), context=CONTEXT)  # type: ignore[arg-type]

    @pytest.mark.parametrize("context", [pytest.param("", id="empty"), pytest.param(None, id="none")])
    def test_context_is_required(self, context: str) -> None:
        with pytest.raises(ValueError, match="context"):
            encrypt(PAN, context=context)
        token = encrypt(PAN, context=CONTEXT)
        with pytest.raises(ValueError, match="context"):
            decrypt(token, context=context)


class TestAuthentication:
    @pytest.mark.parametrize(
        "other_context",
        [
            pytest.param("checkout-session:7c9e6679-7425-40de-944b-e07fc1f90ae7", id="other-row"),
            pytest.param("payment-method:0f8fad5b-d9cb-469f-a165-70867728950e", id="other-purpose"),
            pytest.param(CONTEXT + " ", id="trailing-space"),
            pytest.param(CONTEXT.upper(), id="case"),
        ],
    )
    def test_other_context_is_rejected(self, other_context: str) -> None:
        token = encrypt(PAN, context=CONTEXT)
        with pytest.raises(VaultError, match="authentication") as excinfo:
            decrypt(token, context=other_context)
        assert PAN not in str(excinfo.value)

    @pytest.mark.parametrize(
        "tamper",
        [
            pytest.param(lambda t: rebuild(t, nonce=flip_first_bit(unb64(t.split(".")[2]))), id="nonce-bit"),
            pytest.param(lambda t: rebuild(t, sealed=flip_first_bit(unb64(t.split(".")[3]))), id="ciphertext-bit"),
            pytest.param(lambda t: rebuild(t, sealed=unb64(t.split(".")[3])[:-1]), id="truncated-tag"),
            pytest.param(lambda t: rebuild(t, sealed=unb64(t.split(".")[3]) + b"\x00"), id="appended-byte"),
            pytest.param(lambda t: rebuild(t, key_id="key-b"), id="relabelled-key-id"),
        ],
    )
    def test_tampered_token_fails_authentication(self, vault_keys: Settings, tamper: Callable[[str], str]) -> None:
        token = encrypt(PAN, context=CONTEXT)
        # Key B is configured too, so relabelling the key id reaches the cipher instead of failing the lookup.
        vault_keys.CARD_ENCRYPTION_KEYS = [KEY_A, KEY_B]
        with pytest.raises(VaultError, match="authentication") as excinfo:
            decrypt(tamper(token), context=CONTEXT)
        assert PAN not in str(excinfo.value)

    @pytest.mark.parametrize(
        ("tamper", "message"),
        [
            pytest.param(lambda t: "", "malformed", id="empty"),
            pytest.param(lambda t: t + ".extra", "malformed", id="extra-part"),
            pytest.param(lambda t: t.rsplit(".", 1)[0], "malformed", id="missing-part"),
            pytest.param(lambda t: rebuild(t, version="v2"), "version", id="unknown-version"),
            pytest.param(lambda t: rebuild(t, key_id="key.a"), "malformed", id="dot-in-key-id"),
            pytest.param(lambda t: rebuild(t, key_id=""), "malformed", id="empty-key-id"),
            pytest.param(lambda t: rebuild(t, nonce=b"\x00" * 8), "malformed", id="short-nonce"),
            pytest.param(lambda t: rebuild(t, sealed=b"\x00" * 15), "malformed", id="shorter-than-tag"),
            pytest.param(lambda t: t + "=", "malformed", id="padding"),
            pytest.param(lambda t: t[:-1] + "+", "malformed", id="standard-base64-alphabet"),
            pytest.param(lambda t: t.replace(".", ". ", 1), "malformed", id="whitespace"),
            pytest.param(lambda t: t + "\n", "malformed", id="trailing-newline"),
        ],
    )
    def test_malformed_token_is_rejected(self, tamper: Callable[[str], str], message: str) -> None:
        token = encrypt(PAN, context=CONTEXT)
        with pytest.raises(VaultError, match=message):
            decrypt(tamper(token), context=CONTEXT)

    def test_non_canonical_base64_is_rejected(self) -> None:
        token = encrypt("", context=CONTEXT)
        # A bare 16-byte tag takes 22 characters whose last one carries 4 unused bits; setting one gives a second
        # spelling of the same bytes, which must not be accepted as the same ciphertext.
        sealed_text = token.split(".")[3]
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        variant = sealed_text[:-1] + alphabet[alphabet.index(sealed_text[-1]) ^ 1]
        assert unb64(variant) == unb64(sealed_text)
        with pytest.raises(VaultError, match="malformed"):
            decrypt(token[: -len(sealed_text)] + variant, context=CONTEXT)

    def test_non_string_token_is_rejected(self) -> None:
        with pytest.raises(VaultError, match="malformed"):
            decrypt(None, context=CONTEXT)  # type: ignore[arg-type]

    def test_unknown_key_id_is_reported(self, vault_keys: Settings) -> None:
        token = encrypt(PAN, context=CONTEXT)
        vault_keys.CARD_ENCRYPTION_KEYS = [KEY_B]
        with pytest.raises(VaultError, match="unknown key id 'key-a'"):
            decrypt(token, context=CONTEXT)

    def test_key_id_is_authenticated(self, vault_keys: Settings) -> None:
        token = encrypt(PAN, context=CONTEXT)
        # The same key under a second id isolates the check to the header binding rather than the key itself.
        vault_keys.CARD_ENCRYPTION_KEYS = [KEY_A, f"key-c:{KEY_A_MATERIAL}"]
        with pytest.raises(VaultError, match="authentication"):
            decrypt(rebuild(token, key_id="key-c"), context=CONTEXT)

    def test_same_key_id_with_different_key_fails_authentication(self, vault_keys: Settings) -> None:
        token = encrypt(PAN, context=CONTEXT)
        vault_keys.CARD_ENCRYPTION_KEYS = [f"key-a:{KEY_B_MATERIAL}"]
        with pytest.raises(VaultError, match="authentication"):
            decrypt(token, context=CONTEXT)


class TestRotation:
    def test_rotating_to_a_new_key(self, vault_keys: Settings) -> None:
        token_a = encrypt(PAN, context=CONTEXT)
        assert key_id_of(token_a) == "key-a"
        assert not needs_rotation(token_a)

        vault_keys.CARD_ENCRYPTION_KEYS = [KEY_B, KEY_A]

        assert current_key_id() == "key-b"
        assert decrypt(token_a, context=CONTEXT) == PAN
        assert needs_rotation(token_a)
        token_b = encrypt(decrypt(token_a, context=CONTEXT), context=CONTEXT)
        assert key_id_of(token_b) == "key-b"
        assert not needs_rotation(token_b)
        assert decrypt(token_b, context=CONTEXT) == PAN

    def test_retired_key_can_no_longer_decrypt(self, vault_keys: Settings) -> None:
        token_a = encrypt(PAN, context=CONTEXT)
        vault_keys.CARD_ENCRYPTION_KEYS = [KEY_B]
        with pytest.raises(VaultError, match="unknown key id"):
            decrypt(token_a, context=CONTEXT)

    def test_override_settings_is_picked_up_and_undone(self) -> None:
        assert current_key_id() == "key-a"
        with override_settings(CARD_ENCRYPTION_KEYS=[KEY_B, KEY_A]):
            assert current_key_id() == "key-b"
            token_b = encrypt(PAN, context=CONTEXT)
        assert current_key_id() == "key-a"
        with pytest.raises(VaultError, match="unknown key id 'key-b'"):
            decrypt(token_b, context=CONTEXT)

    def test_key_id_of_does_not_need_the_key(self, vault_keys: Settings) -> None:
        token = encrypt(PAN, context=CONTEXT)
        vault_keys.CARD_ENCRYPTION_KEYS = [KEY_B]
        assert key_id_of(token) == "key-a"
        assert needs_rotation(token)

    @pytest.mark.parametrize("token", [pytest.param("", id="empty"), pytest.param("v1.a.b", id="three-parts")])
    def test_key_id_of_rejects_malformed_tokens(self, token: str) -> None:
        with pytest.raises(VaultError, match="malformed"):
            key_id_of(token)
        with pytest.raises(VaultError, match="malformed"):
            needs_rotation(token)


class TestKeySettings:
    @pytest.mark.parametrize(
        ("keys", "message"),
        [
            pytest.param([], "at least one key", id="empty-list"),
            pytest.param(KEY_A, "must be a list", id="bare-string"),
            pytest.param(None, "not configured", id="none"),
            pytest.param([KEY_A_MATERIAL], r"CARD_ENCRYPTION_KEYS\[0\] must look like", id="no-key-id"),
            pytest.param([f"a:{KEY_A_MATERIAL}:x"], r"\[0\] must look like", id="two-colons"),
            pytest.param([f":{KEY_A_MATERIAL}"], r"\[0\] has an invalid key id", id="empty-key-id"),
            pytest.param([f"key.a:{KEY_A_MATERIAL}"], r"\[0\] has an invalid key id", id="dot-in-key-id"),
            pytest.param([f"key a:{KEY_A_MATERIAL}"], r"\[0\] has an invalid key id", id="space-in-key-id"),
            pytest.param([f"{'k' * 33}:{KEY_A_MATERIAL}"], r"\[0\] has an invalid key id", id="long-key-id"),
            pytest.param([f"a:{b64(bytes(16))}"], r"\[0\] must hold a base64url-encoded 32-byte key", id="128-bit"),
            pytest.param([f"a:{b64(bytes(33))}"], r"\[0\] must hold", id="33-bytes"),
            pytest.param(["a:"], r"\[0\] must hold", id="no-key"),
            pytest.param([f"a:{KEY_A_MATERIAL[:-1]}!"], r"\[0\] must hold", id="bad-base64"),
            pytest.param([KEY_A, "b:short"], r"\[1\] must hold", id="second-entry-bad"),
            pytest.param([KEY_A, f"key-a:{KEY_B_MATERIAL}"], "key id 'key-a' more than once", id="duplicate-id"),
            pytest.param([KEY_A, 42], r"\[1\] must look like", id="not-a-string"),
        ],
    )
    def test_malformed_setting_is_rejected(self, vault_keys: Settings, keys: object, message: str) -> None:
        vault_keys.CARD_ENCRYPTION_KEYS = keys
        with pytest.raises(VaultError, match=message) as excinfo:
            encrypt(PAN, context=CONTEXT)
        assert KEY_A_MATERIAL not in str(excinfo.value)
        assert KEY_B_MATERIAL not in str(excinfo.value)

    def test_missing_setting_is_rejected(self, vault_keys: Settings) -> None:
        # Deleting through the fixture sends no setting_changed; this relies on the cache being empty since the
        # autouse assignment, which is the situation of a process started without the setting.
        del vault_keys.CARD_ENCRYPTION_KEYS
        with pytest.raises(VaultError, match="CARD_ENCRYPTION_KEYS is not configured"):
            current_key_id()

    def test_error_is_not_cached(self, vault_keys: Settings) -> None:
        vault_keys.CARD_ENCRYPTION_KEYS = []
        with pytest.raises(VaultError):
            current_key_id()
        vault_keys.CARD_ENCRYPTION_KEYS = [KEY_B]
        assert current_key_id() == "key-b"

    def test_tuple_and_padded_keys_are_accepted(self, vault_keys: Settings) -> None:
        token = encrypt(PAN, context=CONTEXT)
        padded = base64.urlsafe_b64encode(bytes([0xA1]) * 32).decode("ascii")
        assert padded.endswith("=")
        vault_keys.CARD_ENCRYPTION_KEYS = (f"key-a:{padded}",)
        assert decrypt(token, context=CONTEXT) == PAN

    def test_parsed_keyring_is_cached(self) -> None:
        current_key_id()
        hits = crypto._keyring.cache_info().hits
        current_key_id()
        assert crypto._keyring.cache_info().hits == hits + 1


class TestGenerateKeySpec:
    def test_default_spec_is_usable(self, vault_keys: Settings) -> None:
        spec = generate_key_spec()
        assert re.fullmatch(r"k[0-9a-f]{8}:[A-Za-z0-9_-]{43}", spec)
        assert len(unb64(spec.split(":")[1])) == 32
        vault_keys.CARD_ENCRYPTION_KEYS = [spec]
        assert current_key_id() == spec.split(":")[0]
        assert decrypt(encrypt(PAN, context=CONTEXT), context=CONTEXT) == PAN

    def test_named_spec(self) -> None:
        assert generate_key_spec("2025-06_primary").startswith("2025-06_primary:")

    def test_specs_are_random(self) -> None:
        specs = {generate_key_spec("same").split(":")[1] for _ in range(20)}
        assert len(specs) == 20

    @pytest.mark.parametrize(
        "key_id",
        [
            pytest.param("", id="empty"),
            pytest.param("a.b", id="dot"),
            pytest.param("a:b", id="colon"),
            pytest.param("k" * 33, id="too-long"),
            pytest.param("cl\u00e9", id="non-ascii"),
        ],
    )
    def test_invalid_key_id_is_rejected(self, key_id: str) -> None:
        with pytest.raises(VaultError, match="Key id"):
            generate_key_spec(key_id)


class TestFingerprint:
    def test_is_hmac_sha256_of_the_number(self) -> None:
        expected = hmac.new(FINGERPRINT_KEY_BYTES, PAN.encode("ascii"), hashlib.sha256).digest()
        assert fingerprint(PAN) == b64(expected)

    def test_known_answer(self) -> None:
        # Stored fingerprints depend on this exact output; a change here orphans every saved value.
        assert fingerprint(PAN) == "BiIkEgE4KkWRL7IoKLP321FTzyBycipz3tImI-p5q8k"

    def test_shape(self) -> None:
        value = fingerprint(PAN)
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", value)
        assert PAN not in value

    def test_deterministic_and_distinct(self) -> None:
        assert fingerprint(PAN) == fingerprint(PAN)
        assert fingerprint(PAN) != fingerprint("4012888888881881")

    def test_depends_on_the_key(self, vault_keys: Settings) -> None:
        before = fingerprint(PAN)
        vault_keys.CARD_FINGERPRINT_KEY = b64(bytes(range(1, 33)))
        assert fingerprint(PAN) != before

    @pytest.mark.parametrize(
        ("key", "message"),
        [
            pytest.param("", "not configured", id="empty"),
            pytest.param(None, "not configured", id="none"),
            pytest.param(b64(bytes(31)), "at least 32 bytes", id="too-short"),
            pytest.param("not base64!", "at least 32 bytes", id="bad-base64"),
            pytest.param(FINGERPRINT_KEY_BYTES, "at least 32 bytes", id="raw-bytes"),
        ],
    )
    def test_malformed_key_is_rejected(self, vault_keys: Settings, key: object, message: str) -> None:
        vault_keys.CARD_FINGERPRINT_KEY = key
        with pytest.raises(VaultError, match=message):
            fingerprint(PAN)
        with pytest.raises(VaultError, match=message):
            keyed_hash(PAN, purpose="gift-card-number")

    def test_missing_key_is_rejected(self, vault_keys: Settings) -> None:
        # As above, deletion sends no setting_changed, so nothing may read the key before this point.
        del vault_keys.CARD_FINGERPRINT_KEY
        with pytest.raises(VaultError, match="CARD_FINGERPRINT_KEY is not configured"):
            fingerprint(PAN)

    def test_longer_key_is_accepted(self, vault_keys: Settings) -> None:
        vault_keys.CARD_FINGERPRINT_KEY = b64(bytes(64))
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", fingerprint(PAN))


class TestKeyedHash:
    def test_differs_from_fingerprint(self) -> None:
        assert keyed_hash(PAN, purpose="card-fingerprint") != fingerprint(PAN)

    def test_purposes_are_independent(self) -> None:
        values = {keyed_hash("1234", purpose=purpose) for purpose in ("gift-card-number", "gift-card-pin", "other")}
        assert len(values) == 3

    def test_known_answer(self) -> None:
        # Stored lookup hashes depend on this exact derivation; a change here orphans every saved value.
        assert keyed_hash("1234", purpose="gift-card-pin") == "Im4nYk5jQ8PJJ4M60DlvWNTWqNzecpcn0ItcASFq1rw"

    def test_depends_on_the_fingerprint_key(self, vault_keys: Settings) -> None:
        before = keyed_hash("1234", purpose="gift-card-pin")
        vault_keys.CARD_FINGERPRINT_KEY = b64(bytes(range(1, 33)))
        assert keyed_hash("1234", purpose="gift-card-pin") != before

    @pytest.mark.parametrize("purpose", [pytest.param("", id="empty"), pytest.param(None, id="none")])
    def test_purpose_is_required(self, purpose: str) -> None:
        with pytest.raises(ValueError, match="purpose"):
            keyed_hash("1234", purpose=purpose)

    def test_matches(self) -> None:
        stored = keyed_hash("1234", purpose="gift-card-pin")
        assert keyed_hash_matches("1234", stored, purpose="gift-card-pin")
        assert not keyed_hash_matches("1235", stored, purpose="gift-card-pin")
        assert not keyed_hash_matches("1234", stored, purpose="gift-card-number")
        assert not keyed_hash_matches("1234", stored[:-1], purpose="gift-card-pin")
        assert not keyed_hash_matches("1234", "\u00e9" * 43, purpose="gift-card-pin")

    @shared_settings
    @given(value=st.text(), other=st.text())
    def test_distinct_values_hash_differently(self, vault_keys: Settings, value: str, other: str) -> None:
        assert (keyed_hash(value, purpose="p") == keyed_hash(other, purpose="p")) == (value == other)
