"""A detached CMS (PKCS #7) signature, checked the way Apple Pay signs its tokens: one signer, SHA-256, signed
attributes carrying the content's digest and the signing time, the signer's certificates inside.

asn1crypto reads the structure (`cryptography` has no CMS verifier); `cryptography` checks every signature.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime

from asn1crypto import cms
from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from payments.wallettokens.errors import BadSignature, MalformedToken, UnsupportedToken


@dataclass(frozen=True)
class DetachedSignature:
    """What a verified signature vouches for: the certificates it carried (the signer's first) and when it was
    signed."""

    signer: x509.Certificate
    certificates: tuple[x509.Certificate, ...]
    signing_time: datetime


def verify_detached(signature: bytes, content: bytes) -> DetachedSignature:
    """Check that `signature` is a valid CMS signature of `content` by the certificate it names; the caller decides
    whether that certificate is trusted."""
    signed_data = _signed_data(signature)
    signer_info = _single_signer(signed_data)
    certificates = _certificates(signed_data)
    signer = _signer_certificate(signer_info, certificates)
    attributes = _signed_attributes(signer_info)
    digest = _attribute(attributes, "message_digest")
    if not isinstance(digest, bytes) or not hmac.compare_digest(digest, hashlib.sha256(content).digest()):
        raise BadSignature("The signature is not over this token's data (message digest differs).")
    _verify_signer(signer, signer_info)
    signing_time = _attribute(attributes, "signing_time")
    if not isinstance(signing_time, datetime):
        raise MalformedToken("The signature's signing time is not a time.")
    return DetachedSignature(signer=signer, certificates=tuple(certificates), signing_time=signing_time)


def _signed_data(signature: bytes) -> cms.SignedData:
    try:
        info = cms.ContentInfo.load(signature, strict=True)
        if info["content_type"].native != "signed_data":
            raise MalformedToken("The signature is not CMS signed data.")
        signed_data = info["content"]
        signed_data.native  # noqa: B018 - parse every field now, so a bad encoding fails here, not mid-check
    except (ValueError, TypeError, KeyError, AttributeError) as error:  # what asn1crypto raises on bad input
        raise MalformedToken("The signature is not a DER-encoded CMS structure.") from error
    if signed_data["encap_content_info"]["content"].native is not None:
        raise MalformedToken("The signature is not detached: it carries content of its own.")
    return signed_data


def _single_signer(signed_data: cms.SignedData) -> cms.SignerInfo:
    signer_infos = signed_data["signer_infos"]
    if len(signer_infos) != 1:
        raise MalformedToken("The signature must have exactly one signer.")
    signer_info = signer_infos[0]
    if signer_info["digest_algorithm"]["algorithm"].native != "sha256":
        raise UnsupportedToken("The signature's digest is not SHA-256.")
    return signer_info


def _certificates(signed_data: cms.SignedData) -> list[x509.Certificate]:
    certificates = []
    for choice in signed_data["certificates"] or []:
        if choice.name != "certificate":
            raise MalformedToken("The signature carries something other than X.509 certificates.")
        certificates.append(_certificate(choice.chosen.dump()))
    return certificates


def _certificate(der: bytes) -> x509.Certificate:
    """A certificate whose every part the checks read parses now (`cryptography` parses some lazily)."""
    try:
        certificate = x509.load_der_x509_certificate(der)
        certificate.public_key()
        certificate.issuer  # noqa: B018
        certificate.subject  # noqa: B018
        certificate.extensions  # noqa: B018
        certificate.signature_hash_algorithm  # noqa: B018
    except (ValueError, UnsupportedAlgorithm, x509.InvalidVersion) as error:
        raise MalformedToken("The signature carries a certificate that does not parse.") from error
    return certificate


def _signer_certificate(signer_info: cms.SignerInfo, certificates: list[x509.Certificate]) -> x509.Certificate:
    sid = signer_info["sid"]
    if sid.name != "issuer_and_serial_number":
        raise MalformedToken("The signer is not named by issuer and serial number.")
    issuer_der = sid.chosen["issuer"].dump()
    serial = sid.chosen["serial_number"].native
    for certificate in certificates:
        if certificate.serial_number == serial and certificate.issuer.public_bytes() == issuer_der:
            return certificate
    raise MalformedToken("The signature does not carry its signer's certificate.")


def _signed_attributes(signer_info: cms.SignerInfo) -> cms.CMSAttributes:
    attributes = signer_info["signed_attrs"]
    if not attributes:
        raise MalformedToken("The signature has no signed attributes.")
    if _attribute(attributes, "content_type") != "data":
        raise MalformedToken("The signed content type is not data.")
    return attributes


def _attribute(attributes: cms.CMSAttributes, name: str) -> object:
    values = [attribute["values"] for attribute in attributes if attribute["type"].native == name]
    if len(values) != 1 or len(values[0]) != 1:
        raise MalformedToken(f"The signature's {name.replace('_', ' ')} attribute is missing or repeated.")
    return values[0][0].native


def _verify_signer(signer: x509.Certificate, signer_info: cms.SignerInfo) -> None:
    public_key = signer.public_key()
    if not isinstance(public_key, ec.EllipticCurvePublicKey):
        raise UnsupportedToken("The signer's key is not an elliptic curve key.")
    # The signature covers the DER of the signed attributes as a SET OF (RFC 5652 5.4), not their [0] tagging.
    signed_bytes = b"\x31" + signer_info["signed_attrs"].dump()[1:]
    try:
        public_key.verify(signer_info["signature"].native, signed_bytes, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as error:
        raise BadSignature("The token's signature does not verify with its signer's key.") from error
