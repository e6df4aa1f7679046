"""Apple Pay `EC_v1` payment tokens, verified and decrypted as Apple's Payment Token Format Reference publishes:

1. the detached CMS signature over ephemeralPublicKey || data || transactionId || applicationData, by a leaf
   certificate bearing Apple's leaf OID, issued by an intermediate bearing Apple's intermediate OID, issued by a
   trusted root, signed within the allowed window of now;
2. publicKeyHash names one of the merchant's payment processing keys;
3. ECDH with that key and the ephemeral key, the NIST SP 800-56A single-step KDF with SHA-256, AES-256-GCM with a
   16-byte zero IV opens the data.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import pycountry
from cryptography import x509
from cryptography.exceptions import InvalidSignature, InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_der_public_key
from django.conf import settings

from payments.wallettokens import parsing
from payments.wallettokens.cms import DetachedSignature, verify_detached
from payments.wallettokens.errors import (
    ExpiredToken,
    MalformedToken,
    OtherMerchant,
    TamperedCiphertext,
    UnsupportedToken,
    UntrustedSigner,
)
from payments.wallettokens.payment import AuthMethod, Wallet, WalletPayment
from payments.wallettokens.roots import apple_pay_roots

VERSION = "EC_v1"
LEAF_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.29")
INTERMEDIATE_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.2.14")

KDF_ALGORITHM = b"\x0did-aes256-GCM"
KDF_PARTY_U = b"Apple"
GCM_IV = bytes(16)


def public_key_hash(key: ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) -> str:
    """Apple's publicKeyHash of a payment processing key: base64 of SHA-256 of its X.509 SubjectPublicKeyInfo."""
    public_key = key.public_key() if isinstance(key, ec.EllipticCurvePrivateKey) else key
    spki = public_key.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


def decrypt_apple_pay(
    token: str | bytes | Mapping[str, Any],
    *,
    merchant_identifier: str,
    processing_keys: Sequence[ec.EllipticCurvePrivateKey],
    now: datetime,
    trusted_roots: Sequence[x509.Certificate] | None = None,
    signing_window: timedelta | None = None,
) -> WalletPayment:
    """Verify and decrypt an Apple Pay token (`paymentData`), or raise the WalletTokenRefused naming why.

    `trusted_roots` and `signing_window` default to the configured ones (settings, docs/wallet-tokens.md)."""
    payment_data = parsing.json_object(token, name="paymentData")
    version = parsing.text(payment_data, "version", name="paymentData")
    if version != VERSION:
        raise UnsupportedToken(f"Apple Pay tokens of version {version!r} are not supported; {VERSION} is.")
    header = _header(payment_data)
    data = parsing.b64(payment_data, "data", name="paymentData")
    signed = header["ephemeral_key"] + data + header["transaction_id"] + header["application_data"]
    signature = verify_detached(parsing.b64(payment_data, "signature", name="paymentData"), signed)
    _check_chain(signature, roots=apple_pay_roots() if trusted_roots is None else trusted_roots)
    _check_signing_time(signature, now=now, window=signing_window or _configured_signing_window())
    key = _processing_key(header["public_key_hash"], processing_keys)
    plaintext = _open(data, key=key, ephemeral_key=header["ephemeral_key"], merchant_identifier=merchant_identifier)
    return _payment(plaintext, transaction_id=header["transaction_id"].hex())


def _header(payment_data: Mapping[str, Any]) -> dict[str, bytes]:
    header = payment_data.get("header")
    if not isinstance(header, dict):
        raise MalformedToken("paymentData.header is missing or not an object.")
    application_data = b""
    if header.get("applicationData") is not None:
        application_data = parsing.hex_bytes(header, "applicationData", name="header")
    return {
        "ephemeral_key": parsing.b64(header, "ephemeralPublicKey", name="header"),
        "public_key_hash": parsing.b64(header, "publicKeyHash", name="header"),
        "transaction_id": parsing.hex_bytes(header, "transactionId", name="header"),
        "application_data": application_data,
    }


def _has_extension(certificate: x509.Certificate, oid: x509.ObjectIdentifier) -> bool:
    return any(extension.oid == oid for extension in certificate.extensions)


def _check_chain(signature: DetachedSignature, *, roots: Sequence[x509.Certificate]) -> None:
    """The signer is Apple's leaf, issued by Apple's intermediate, issued by a trusted root, all valid when signed."""
    leaf = signature.signer
    if not _has_extension(leaf, LEAF_OID):
        raise UntrustedSigner("The signing certificate is not an Apple Pay leaf (its marker OID is missing).")
    intermediate = _issuer_of(leaf, signature.certificates)
    if not _has_extension(intermediate, INTERMEDIATE_OID):
        raise UntrustedSigner("The intermediate certificate is not Apple's (its marker OID is missing).")
    if not _is_ca(intermediate):
        raise UntrustedSigner("The intermediate certificate is not a certificate authority.")
    root = next((root for root in roots if _issued_by(intermediate, root)), None)
    if root is None:
        raise UntrustedSigner("The intermediate certificate was not issued by a trusted root.")
    for certificate in (leaf, intermediate, root):
        if not certificate.not_valid_before_utc <= signature.signing_time <= certificate.not_valid_after_utc:
            raise ExpiredToken("A certificate of the chain was not valid when the token was signed.")


def _issuer_of(leaf: x509.Certificate, certificates: Sequence[x509.Certificate]) -> x509.Certificate:
    for candidate in certificates:
        if candidate is not leaf and _issued_by(leaf, candidate):
            return candidate
    raise UntrustedSigner("The signature does not carry the certificate that issued its signer's.")


def _issued_by(certificate: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        certificate.verify_directly_issued_by(issuer)
    except (ValueError, TypeError, InvalidSignature, UnsupportedAlgorithm):
        return False
    return True


def _is_ca(certificate: x509.Certificate) -> bool:
    try:
        return bool(certificate.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
    except x509.ExtensionNotFound:
        return False


def _configured_signing_window() -> timedelta:
    # Apple suggests refusing a token signed more than a few minutes from now: an older one may be a replay.
    return timedelta(seconds=settings.WALLET_APPLE_PAY_SIGNING_WINDOW_SECONDS)


def _check_signing_time(signature: DetachedSignature, *, now: datetime, window: timedelta) -> None:
    if abs(now - signature.signing_time) > window:
        raise ExpiredToken("The token was signed outside the allowed window of now.")


def _processing_key(
    key_hash: bytes, processing_keys: Sequence[ec.EllipticCurvePrivateKey]
) -> ec.EllipticCurvePrivateKey:
    expected = base64.b64encode(key_hash).decode("ascii")
    for key in processing_keys:
        if public_key_hash(key) == expected:
            return key
    raise OtherMerchant("The token was encrypted for a payment processing key this merchant does not hold.")


def shared_key(shared_secret: bytes, *, merchant_identifier: str) -> bytes:
    """The AES-256 key: NIST SP 800-56A single-step KDF, SHA-256, one round (counter 1), as Apple specifies it."""
    party_v = hashlib.sha256(merchant_identifier.encode("utf-8")).digest()
    other_info = KDF_ALGORITHM + KDF_PARTY_U + party_v
    return hashlib.sha256(b"\x00\x00\x00\x01" + shared_secret + other_info).digest()


def _open(data: bytes, *, key: ec.EllipticCurvePrivateKey, ephemeral_key: bytes, merchant_identifier: str) -> bytes:
    try:
        ephemeral = load_der_public_key(ephemeral_key)
    except (ValueError, UnsupportedAlgorithm) as error:
        raise MalformedToken("header.ephemeralPublicKey is not a public key.") from error
    if not isinstance(ephemeral, ec.EllipticCurvePublicKey) or ephemeral.curve.name != key.curve.name:
        raise MalformedToken("header.ephemeralPublicKey is not a key on the processing key's curve.")
    secret = key.exchange(ec.ECDH(), ephemeral)
    try:
        return AESGCM(shared_key(secret, merchant_identifier=merchant_identifier)).decrypt(GCM_IV, data, None)
    except InvalidTag as error:
        raise TamperedCiphertext(
            "The token's data does not authenticate: altered, or sealed for another merchant identifier."
        ) from error


def _payment(plaintext: bytes, *, transaction_id: str) -> WalletPayment:
    decrypted = parsing.json_object(plaintext, name="decrypted data")
    if decrypted.get("paymentDataType") != "3DSecure":
        raise UnsupportedToken("Only Apple Pay payments of data type 3DSecure are supported (not EMV).")
    details = decrypted.get("paymentData")
    if not isinstance(details, dict):
        raise MalformedToken("The decrypted paymentData is missing or not an object.")
    year, month = _expiry(parsing.text(decrypted, "applicationExpirationDate", name="decrypted data"))
    return WalletPayment(
        wallet=Wallet.APPLE_PAY,
        transaction_id=transaction_id,
        number=parsing.card_number(decrypted, "applicationPrimaryAccountNumber", name="decrypted data"),
        expiration_month=month,
        expiration_year=year,
        auth_method=AuthMethod.CRYPTOGRAM_3DS,
        cryptogram=parsing.text(details, "onlinePaymentCryptogram", name="paymentData"),
        eci=parsing.optional_text(details, "eciIndicator", name="paymentData"),
        amount=_amount(decrypted.get("transactionAmount")),
        currency=_currency(parsing.text(decrypted, "currencyCode", name="decrypted data")),
        cardholder_name=parsing.optional_text(decrypted, "cardholderName", name="decrypted data"),
    )


def _expiry(value: str) -> tuple[int, int]:
    """applicationExpirationDate is YYMMDD."""
    if len(value) != 6 or not value.isascii() or not value.isdigit() or not 1 <= int(value[2:4]) <= 12:
        raise MalformedToken("The decrypted applicationExpirationDate is not YYMMDD.")
    return 2000 + int(value[:2]), int(value[2:4])


def _amount(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedToken("The decrypted transactionAmount is not a whole number of minor units.")
    return value


def _currency(numeric: str) -> str:
    """Apple sends ISO 4217's numeric code; the API speaks its letters."""
    currency = pycountry.currencies.get(numeric=numeric) if numeric.isascii() and numeric.isdigit() else None
    if currency is None:
        raise MalformedToken("The decrypted currencyCode is not an ISO 4217 numeric code.")
    return str(currency.alpha_3)
