"""The key pairs of a wallet: made here, sealed with the card vault's keys, never shown or sent anywhere.

Apple Pay takes two certificate signing requests (payment processing: EC P-256, merchant identity: RSA 2048) and
signs them in the merchant's Apple Developer account; Google Pay takes an EC P-256 public key in its console.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from digitalwallets.models import WalletKey, WalletKeyPurpose
from payments.errors import DomainError
from payments.vault import crypto

PrivateKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey

# Apple's merchant identity certificate names the merchant identifier in its subject's user id.
_MERCHANT_ID_OID = NameOID.USER_ID


class CertificateRefused(DomainError):
    """A certificate that is not one Apple signed for this wallet's key pairs, or cannot be read."""


@dataclass(frozen=True)
class KeyKind:
    algorithm: str
    csr: bool


KINDS: dict[str, KeyKind] = {
    WalletKeyPurpose.APPLE_PAYMENT_PROCESSING: KeyKind("EC P-256", csr=True),
    WalletKeyPurpose.APPLE_MERCHANT_IDENTITY: KeyKind("RSA 2048", csr=True),
    WalletKeyPurpose.GOOGLE_PAYMENT: KeyKind("EC P-256", csr=False),
}


def _context(key_id: object) -> str:
    """Bind a sealed private key to its row, so it opens nowhere else."""
    return f"digital-wallet-key:{key_id}"


def _generate(algorithm: str) -> PrivateKey:
    if algorithm == "RSA 2048":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return ec.generate_private_key(ec.SECP256R1())


def public_key_text(private_key: PrivateKey) -> str:
    """The public key as base64 DER SubjectPublicKeyInfo: what Google's console asks for."""
    der = private_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(der).decode("ascii")


def _csr(private_key: PrivateKey, common_name: str) -> str:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name[:64])])
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(private_key, hashes.SHA256())
    return request.public_bytes(serialization.Encoding.PEM).decode("ascii")


def key_make(key: WalletKey, *, common_name: str) -> None:
    """Fill `key` (not saved) with a new key pair of its purpose: sealed private half, public half, and its CSR."""
    kind = KINDS[key.purpose]
    private_key = _generate(kind.algorithm)
    key.algorithm = kind.algorithm
    key.public_key = public_key_text(private_key)
    key.csr = _csr(private_key, common_name) if kind.csr else None
    _seal(key, private_key)


def _seal(key: WalletKey, private_key: PrivateKey) -> None:
    pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")
    key.sealed_private_key = crypto.encrypt(pem, context=_context(key.id))
    key.key_id = crypto.current_key_id()


def key_reseal(key: WalletKey) -> None:
    """Seal the key's private half again under the current vault key (key rotation)."""
    _seal(key, key_private(key))


def key_private(key: WalletKey) -> PrivateKey:
    """The private half, opened: for a wallet's own operations only (never logged, stored or rendered)."""
    pem = crypto.decrypt(key.sealed_private_key, context=_context(key.id)).encode("ascii")
    private_key = serialization.load_pem_private_key(pem, password=None)
    assert isinstance(private_key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey)  # noqa: S101 - we sealed it
    return private_key


def certificate_read(text: str) -> x509.Certificate:
    """A certificate as Apple gives it (a `.cer` file: DER) in base64, or as PEM; anything else is refused."""
    text = text.strip()
    try:
        if text.startswith("-----BEGIN"):
            return x509.load_pem_x509_certificate(text.encode("ascii"))
        return x509.load_der_x509_certificate(base64.b64decode(text, validate=True))
    except (ValueError, binascii.Error, UnicodeEncodeError):
        raise CertificateRefused(
            "certificate: not an X.509 certificate (send the .cer file Apple gives, in base64, or as PEM).",
            pointer="/certificate",
        ) from None


def certificate_matches(key: WalletKey, certificate: x509.Certificate) -> bool:
    """Whether the certificate certifies this key pair's public half."""
    der = certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(der).decode("ascii") == key.public_key


def certificate_pem(certificate: x509.Certificate) -> str:
    return certificate.public_bytes(serialization.Encoding.PEM).decode("ascii")


def merchant_identifier(certificate: x509.Certificate) -> str | None:
    """The merchant identifier Apple's merchant identity certificate names (its subject's UID), if it names one."""
    names = certificate.subject.get_attributes_for_oid(_MERCHANT_ID_OID)
    return str(names[0].value) if names else None
