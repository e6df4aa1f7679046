"""Tokens made byte for byte in the published formats, signed by the test's own roots: a fake Apple PKI (root,
intermediate and leaf with Apple's marker OIDs) and a fake Google root signing key. Tests of anything that takes
wallet tokens import these; the server itself never does."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from asn1crypto import algos, cms
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from cryptography.x509.oid import NameOID

from payments.wallettokens import apple, google
from payments.wallettokens.parsing import length_prefixed
from payments.wallettokens.roots import RootSigningKey

ASN1_NULL = b"\x05\x00"
CERTIFICATE_LIFETIME = timedelta(days=365)


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _spki(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)


def _certificate(
    *,
    name: str,
    key: ec.EllipticCurvePrivateKey,
    issuer_name: str,
    issuer_key: ec.EllipticCurvePrivateKey,
    valid_from: datetime,
    is_ca: bool,
    marker_oid: x509.ObjectIdentifier | None,
) -> x509.Certificate:
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid_from)
        .not_valid_after(valid_from + CERTIFICATE_LIFETIME)
        .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
    )
    if marker_oid is not None:
        builder = builder.add_extension(x509.UnrecognizedExtension(marker_oid, ASN1_NULL), critical=False)
    digest = hashes.SHA384() if isinstance(issuer_key.curve, ec.SECP384R1) else hashes.SHA256()
    return builder.sign(issuer_key, digest)


@dataclass(frozen=True)
class ApplePayTestPki:
    """A root (P-384, as Apple Root CA - G3), an intermediate and a signing leaf, each with its private key."""

    root: x509.Certificate
    intermediate: x509.Certificate
    leaf: x509.Certificate
    leaf_key: ec.EllipticCurvePrivateKey = field(repr=False)


def apple_pay_test_pki(
    *, valid_from: datetime, leaf_oid: bool = True, intermediate_oid: bool = True, intermediate_is_ca: bool = True
) -> ApplePayTestPki:
    """A fresh PKI valid for a year from `valid_from`; drop a marker OID or the CA flag to make a hostile one."""
    root_key = ec.generate_private_key(ec.SECP384R1())
    intermediate_key = ec.generate_private_key(ec.SECP256R1())
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    root = _certificate(
        name="Test Root CA", key=root_key, issuer_name="Test Root CA", issuer_key=root_key,
        valid_from=valid_from, is_ca=True, marker_oid=None,
    )  # fmt: skip
    intermediate = _certificate(
        name="Test Application Integration CA", key=intermediate_key, issuer_name="Test Root CA", issuer_key=root_key,
        valid_from=valid_from, is_ca=intermediate_is_ca,
        marker_oid=apple.INTERMEDIATE_OID if intermediate_oid else None,
    )  # fmt: skip
    leaf = _certificate(
        name="test-ecc-smp-broker-sign", key=leaf_key, issuer_name="Test Application Integration CA",
        issuer_key=intermediate_key, valid_from=valid_from, is_ca=False,
        marker_oid=apple.LEAF_OID if leaf_oid else None,
    )  # fmt: skip
    return ApplePayTestPki(root=root, intermediate=intermediate, leaf=leaf, leaf_key=leaf_key)


def apple_pay_payload(
    *,
    number: str = "4111111111111111",
    expiration: str = "301231",
    amount: int = 1299,
    currency_numeric: str = "840",
    cryptogram: str = "AgAAAAAABk4DWZ4C28yUQAAAAAA=",
    eci: str | None = "07",
    payment_data_type: str = "3DSecure",
) -> dict[str, Any]:
    """The decrypted payment data of an Apple Pay token, in the published field names."""
    payment_data: dict[str, Any] = {"onlinePaymentCryptogram": cryptogram}
    if eci is not None:
        payment_data["eciIndicator"] = eci
    return {
        "applicationPrimaryAccountNumber": number,
        "applicationExpirationDate": expiration,
        "currencyCode": currency_numeric,
        "transactionAmount": amount,
        "deviceManufacturerIdentifier": "040010030273",
        "paymentDataType": payment_data_type,
        "paymentData": payment_data,
    }


def _cms_signature(pki: ApplePayTestPki, content: bytes, *, signing_time: datetime) -> bytes:
    leaf = asn1_x509.Certificate.load(pki.leaf.public_bytes(Encoding.DER))
    signer_info = cms.SignerInfo({
        "version": "v1",
        "sid": cms.SignerIdentifier(
            name="issuer_and_serial_number",
            value={"issuer": leaf.issuer, "serial_number": leaf.serial_number},
        ),
        "digest_algorithm": {"algorithm": "sha256"},
        "signed_attrs": [
            {"type": "content_type", "values": ["data"]},
            {"type": "signing_time", "values": [cms.Time(name="utc_time", value=signing_time)]},
            {"type": "message_digest", "values": [hashlib.sha256(content).digest()]},
        ],
        "signature_algorithm": algos.SignedDigestAlgorithm({"algorithm": "sha256_ecdsa"}),
        "signature": b"",
    })  # fmt: skip
    # Signed as the verifier reads it: the DER of the attributes as a SET OF (RFC 5652 5.4).
    signed_attributes = b"\x31" + signer_info["signed_attrs"].dump()[1:]
    signer_info["signature"] = pki.leaf_key.sign(signed_attributes, ec.ECDSA(hashes.SHA256()))
    signed_data = cms.SignedData({
        "version": "v1",
        "digest_algorithms": [{"algorithm": "sha256"}],
        "encap_content_info": {"content_type": "data"},
        "certificates": [leaf, asn1_x509.Certificate.load(pki.intermediate.public_bytes(Encoding.DER))],
        "signer_infos": [signer_info],
    })  # fmt: skip
    encoded: bytes = cms.ContentInfo({"content_type": "signed_data", "content": signed_data}).dump()
    return encoded


def mint_apple_pay_token(
    *,
    pki: ApplePayTestPki,
    merchant_identifier: str,
    processing_key: ec.EllipticCurvePublicKey,
    signing_time: datetime,
    payload: dict[str, Any] | None = None,
    transaction_id: bytes | None = None,
    application_data: bytes | None = None,
) -> dict[str, Any]:
    """An Apple Pay `paymentData` (EC_v1) encrypted for `processing_key` and `merchant_identifier`, signed by `pki`."""
    ephemeral = ec.generate_private_key(processing_key.curve)
    ephemeral_spki = _spki(ephemeral.public_key())
    key = apple.shared_key(ephemeral.exchange(ec.ECDH(), processing_key), merchant_identifier=merchant_identifier)
    plaintext = json.dumps(apple_pay_payload() if payload is None else payload).encode()
    data = AESGCM(key).encrypt(apple.GCM_IV, plaintext, None)
    transaction_id = secrets.token_bytes(32) if transaction_id is None else transaction_id
    signed = ephemeral_spki + data + transaction_id + (application_data or b"")
    header = {
        "ephemeralPublicKey": _b64(ephemeral_spki),
        "publicKeyHash": apple.public_key_hash(processing_key),
        "transactionId": transaction_id.hex(),
    }
    if application_data is not None:
        header["applicationData"] = application_data.hex()
    signature = _cms_signature(pki, signed, signing_time=signing_time)
    return {"version": apple.VERSION, "data": _b64(data), "signature": _b64(signature), "header": header}


def _html_safe_json(value: object) -> str:
    """JSON as Google writes it: compact, with =, <, >, & and ' escaped (base64 padding arrives as \\u003d)."""
    encoded = json.dumps(value, separators=(",", ":"))
    for character in "=<>&'":
        encoded = encoded.replace(character, f"\\u{ord(character):04x}")
    return encoded


@dataclass(frozen=True)
class GooglePayTestKeys:
    """A root signing key standing in for Google's, and an intermediate signing key it signs."""

    root_key: ec.EllipticCurvePrivateKey = field(repr=False)
    intermediate_key: ec.EllipticCurvePrivateKey = field(repr=False)

    def root_keys(
        self, *, expires_at_ms: int | None, protocol_version: str = google.PROTOCOL_VERSION
    ) -> tuple[RootSigningKey, ...]:
        return (RootSigningKey(self.root_key.public_key(), protocol_version, expires_at_ms),)

    def root_keys_document(self, *, expires_at_ms: int) -> str:
        """The keys in the format Google publishes them in."""
        key = {
            "keyValue": _b64(_spki(self.root_key.public_key())),
            "protocolVersion": google.PROTOCOL_VERSION,
            "keyExpiration": str(expires_at_ms),
        }
        return json.dumps({"keys": [key]})


def google_pay_test_keys() -> GooglePayTestKeys:
    return GooglePayTestKeys(
        root_key=ec.generate_private_key(ec.SECP256R1()), intermediate_key=ec.generate_private_key(ec.SECP256R1())
    )


def google_pay_message(
    *,
    expires_at_ms: int,
    message_id: str | None = None,
    pan: str = "4895370012003478",
    expiration_month: int = 12,
    expiration_year: int = 2030,
    auth_method: str = "CRYPTOGRAM_3DS",
    cryptogram: str = "AgAAAAAABk4DWZ4C28yUQAAAAAA=",
    eci: str | None = "05",
) -> dict[str, Any]:
    """The decrypted message of a Google Pay token, in the published field names."""
    details: dict[str, Any] = {
        "pan": pan,
        "expirationMonth": expiration_month,
        "expirationYear": expiration_year,
        "authMethod": auth_method,
    }
    if auth_method == "CRYPTOGRAM_3DS":
        details["cryptogram"] = cryptogram
        if eci is not None:
            details["eciIndicator"] = eci
    return {
        "gatewayMerchantId": "test-gateway-merchant",
        "messageExpiration": str(expires_at_ms),
        "messageId": message_id or f"AH2Ejtc{secrets.token_hex(16)}",
        "paymentMethod": "CARD",
        "paymentMethodDetails": details,
    }


def google_pay_signed_message(message: bytes, *, merchant_public_key: ec.EllipticCurvePublicKey) -> str:
    """ECIES-KEM as Google seals: the serialized signedMessage (encryptedMessage, ephemeralPublicKey, tag)."""
    ephemeral = ec.generate_private_key(merchant_public_key.curve)
    point = ephemeral.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    material = HKDF(algorithm=hashes.SHA256(), length=64, salt=bytes(32), info=google.HKDF_INFO).derive(
        point + ephemeral.exchange(ec.ECDH(), merchant_public_key)
    )
    encryptor = Cipher(algorithms.AES(material[:32]), modes.CTR(google.CTR_IV)).encryptor()
    ciphertext = encryptor.update(message) + encryptor.finalize()
    tag = hmac.new(material[32:], ciphertext, "sha256").digest()
    return _html_safe_json({"encryptedMessage": _b64(ciphertext), "ephemeralPublicKey": _b64(point), "tag": _b64(tag)})


def mint_google_pay_token(
    *,
    keys: GooglePayTestKeys,
    recipient_id: str,
    merchant_public_key: ec.EllipticCurvePublicKey,
    message: dict[str, Any],
    key_expires_at_ms: int,
    signed_message: str | None = None,
) -> str:
    """A Google Pay ECv2 token, as the JSON text a client receives, sealed for `merchant_public_key`.

    A `signed_message` given (say, one whose ciphertext was altered) is signed as it is, in place of `message`."""
    if signed_message is None:
        signed_message = google_pay_signed_message(
            json.dumps(message).encode(), merchant_public_key=merchant_public_key
        )
    version = google.PROTOCOL_VERSION.encode()
    signature = keys.intermediate_key.sign(
        length_prefixed(google.SENDER_ID, recipient_id.encode(), version, signed_message.encode()), google.ECDSA_SHA256
    )
    signed_key = _html_safe_json({
        "keyValue": _b64(_spki(keys.intermediate_key.public_key())),
        "keyExpiration": str(key_expires_at_ms),
    })  # fmt: skip
    key_signature = keys.root_key.sign(
        length_prefixed(google.SENDER_ID, version, signed_key.encode()), google.ECDSA_SHA256
    )
    return _html_safe_json({
        "signature": _b64(signature),
        "intermediateSigningKey": {"signedKey": signed_key, "signatures": [_b64(key_signature)]},
        "protocolVersion": google.PROTOCOL_VERSION,
        "signedMessage": signed_message,
    })  # fmt: skip
