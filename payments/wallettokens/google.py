"""Google Pay `ECv2` payment method tokens, verified and decrypted as Google's "Payment data cryptography" page
publishes, in its order:

1. the intermediate signing key's signature, by any unexpired ECv2 root signing key, over
   "Google" || "ECv2" || signedKey (each length-prefixed, 4 bytes little-endian);
2. the intermediate key's own expiry (keyExpiration);
3. the message signature, by the intermediate key, over "Google" || recipientId || "ECv2" || signedMessage;
4. ECIES-KEM: ECDH with the merchant's key, HKDF-SHA256 (zero salt, info "Google") into 32 bytes of AES-256-CTR key
   and 32 of HMAC-SHA256 key; the tag checked before AES-256-CTR with a zero IV decrypts;
5. messageExpiration against now.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import load_der_public_key

from payments.wallettokens import parsing
from payments.wallettokens.errors import (
    BadSignature,
    ExpiredToken,
    MalformedToken,
    TamperedCiphertext,
    UnsupportedToken,
    UntrustedSigner,
)
from payments.wallettokens.payment import AuthMethod, Wallet, WalletPayment
from payments.wallettokens.roots import RootSigningKey, google_pay_root_keys

SENDER_ID = b"Google"
PROTOCOL_VERSION = "ECv2"
HKDF_INFO = b"Google"
SYMMETRIC_KEY_BYTES = 32
MAC_KEY_BYTES = 32
CTR_IV = bytes(16)
ECDSA_SHA256 = ec.ECDSA(hashes.SHA256())


def merchant_recipient_id(merchant_id: str) -> str:
    """The recipientId a merchant's tokens are signed for: "merchant:" and its Google merchant id."""
    return f"merchant:{merchant_id}"


def decrypt_google_pay(
    token: str | bytes | Mapping[str, Any],
    *,
    merchant_id: str,
    private_keys: Sequence[ec.EllipticCurvePrivateKey],
    now: datetime,
    root_keys: Sequence[RootSigningKey] | None = None,
) -> WalletPayment:
    """Verify and decrypt a Google Pay token for this merchant, or raise the WalletTokenRefused naming why."""
    plaintext = unseal_google_pay(
        token, recipient_id=merchant_recipient_id(merchant_id), private_keys=private_keys, now=now, root_keys=root_keys
    )
    message = parsing.json_object(plaintext, name="decrypted message")
    if parsing.millis(message, "messageExpiration", name="decrypted message") <= _millis(now):
        raise ExpiredToken("The payment message has expired (messageExpiration is past).")
    return _payment(message)


def unseal_google_pay(
    token: str | bytes | Mapping[str, Any],
    *,
    recipient_id: str,
    private_keys: Sequence[ec.EllipticCurvePrivateKey],
    now: datetime,
    root_keys: Sequence[RootSigningKey] | None = None,
) -> bytes:
    """Steps 1 to 4: the verified, decrypted message bytes of an ECv2 token signed for `recipient_id`."""
    outer = parsing.json_object(token, name="token")
    version = parsing.text(outer, "protocolVersion", name="token")
    if version != PROTOCOL_VERSION:
        raise UnsupportedToken(f"Google Pay tokens of protocol {version!r} are not supported; {PROTOCOL_VERSION} is.")
    intermediate_key = _intermediate_key(
        outer, root_keys=google_pay_root_keys() if root_keys is None else root_keys, now_ms=_millis(now)
    )
    signed_message = parsing.text(outer, "signedMessage", name="token")
    signed = parsing.length_prefixed(SENDER_ID, recipient_id.encode(), version.encode(), signed_message.encode())
    if not _verifies(intermediate_key, parsing.b64(outer, "signature", name="token"), signed):
        raise BadSignature("The message signature does not verify for this recipient: altered, or signed for another.")
    return _decrypt(parsing.json_object(signed_message, name="signedMessage"), private_keys=private_keys)


def _millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _verifies(public_key: ec.EllipticCurvePublicKey, signature: bytes, data: bytes) -> bool:
    try:
        public_key.verify(signature, data, ECDSA_SHA256)
    except InvalidSignature:
        return False
    return True


def _intermediate_key(
    outer: Mapping[str, Any], *, root_keys: Sequence[RootSigningKey], now_ms: int
) -> ec.EllipticCurvePublicKey:
    """Steps 1 and 2: the intermediate signing key, signed by a live ECv2 root key and not itself expired."""
    intermediate = outer.get("intermediateSigningKey")
    if not isinstance(intermediate, dict):
        raise MalformedToken("token.intermediateSigningKey is missing or not an object.")
    signed_key = parsing.text(intermediate, "signedKey", name="intermediateSigningKey")
    signatures = intermediate.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        raise MalformedToken("intermediateSigningKey.signatures is missing or empty.")
    # ECv2 root keys must say when they expire; one without keyExpiration is not trusted.
    live_roots = [
        root.public_key
        for root in root_keys
        if root.protocol_version == PROTOCOL_VERSION and root.expires_at_ms is not None and root.expires_at_ms > now_ms
    ]
    signed = parsing.length_prefixed(SENDER_ID, PROTOCOL_VERSION.encode(), signed_key.encode())
    decoded = [parsing.b64({"signature": value}, "signature", name="intermediateSigningKey") for value in signatures]
    if not any(_verifies(root, signature, signed) for root in live_roots for signature in decoded):
        raise UntrustedSigner("The intermediate signing key is not signed by a trusted, unexpired Google root key.")
    key = parsing.json_object(signed_key, name="signedKey")
    if parsing.millis(key, "keyExpiration", name="signedKey") <= now_ms:
        raise ExpiredToken("The intermediate signing key has expired.")
    return _public_key(parsing.b64(key, "keyValue", name="signedKey"), name="signedKey.keyValue")


def _public_key(der: bytes, *, name: str) -> ec.EllipticCurvePublicKey:
    try:
        key = load_der_public_key(der)
    except (ValueError, UnsupportedAlgorithm) as error:
        raise MalformedToken(f"{name} is not a public key.") from error
    if not isinstance(key, ec.EllipticCurvePublicKey):
        raise MalformedToken(f"{name} is not an elliptic curve key.")
    return key


def _decrypt(signed_message: Mapping[str, Any], *, private_keys: Sequence[ec.EllipticCurvePrivateKey]) -> bytes:
    """Step 4: the first of the merchant's keys whose MAC key authenticates the message decrypts it."""
    ciphertext = parsing.b64(signed_message, "encryptedMessage", name="signedMessage")
    ephemeral_point = parsing.b64(signed_message, "ephemeralPublicKey", name="signedMessage")
    tag = parsing.b64(signed_message, "tag", name="signedMessage")
    for private_key in private_keys:
        keys = _derived_keys(private_key, ephemeral_point)
        if keys is not None and hmac.compare_digest(_mac(keys[1], ciphertext), tag):
            decryptor = Cipher(algorithms.AES(keys[0]), modes.CTR(CTR_IV)).decryptor()
            return decryptor.update(ciphertext) + decryptor.finalize()
    raise TamperedCiphertext(
        "The message's tag does not verify under the merchant's keys: altered, or sealed for another key."
    )


def _derived_keys(private_key: ec.EllipticCurvePrivateKey, ephemeral_point: bytes) -> tuple[bytes, bytes] | None:
    """ECIES-KEM: HKDF-SHA256 over the ephemeral point (uncompressed) and the ECDH secret."""
    try:
        ephemeral = ec.EllipticCurvePublicKey.from_encoded_point(private_key.curve, ephemeral_point)
    except ValueError:
        return None
    if not ephemeral_point.startswith(b"\x04"):
        return None  # ECv2 sends the point uncompressed, and the KDF input depends on it
    secret = private_key.exchange(ec.ECDH(), ephemeral)
    material = HKDF(
        algorithm=hashes.SHA256(), length=SYMMETRIC_KEY_BYTES + MAC_KEY_BYTES, salt=bytes(32), info=HKDF_INFO
    ).derive(ephemeral_point + secret)
    return material[:SYMMETRIC_KEY_BYTES], material[SYMMETRIC_KEY_BYTES:]


def _mac(key: bytes, ciphertext: bytes) -> bytes:
    return hmac.new(key, ciphertext, "sha256").digest()


def _payment(message: Mapping[str, Any]) -> WalletPayment:
    if message.get("paymentMethod") != "CARD":
        raise UnsupportedToken("Only Google Pay payment methods of type CARD are supported.")
    details = message.get("paymentMethodDetails")
    if not isinstance(details, dict):
        raise MalformedToken("paymentMethodDetails is missing or not an object.")
    auth_method = _auth_method(parsing.text(details, "authMethod", name="paymentMethodDetails"))
    is_token = auth_method is AuthMethod.CRYPTOGRAM_3DS
    return WalletPayment(
        wallet=Wallet.GOOGLE_PAY,
        transaction_id=parsing.text(message, "messageId", name="decrypted message"),
        number=parsing.card_number(details, "pan", name="paymentMethodDetails"),
        expiration_month=_whole(details.get("expirationMonth"), name="expirationMonth", low=1, high=12),
        expiration_year=_whole(details.get("expirationYear"), name="expirationYear", low=2000, high=2999),
        auth_method=auth_method,
        cryptogram=parsing.text(details, "cryptogram", name="paymentMethodDetails") if is_token else None,
        eci=parsing.optional_text(details, "eciIndicator", name="paymentMethodDetails") if is_token else None,
    )


def _auth_method(value: str) -> AuthMethod:
    try:
        return AuthMethod(value)
    except ValueError as error:
        raise UnsupportedToken(f"Google Pay authMethod {value!r} is not supported.") from error


def _whole(value: object, *, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise MalformedToken(f"paymentMethodDetails.{name} is not a number from {low} to {high}.")
    return value
