"""Key material helpers: RFC 7638 thumbprints, key generation and SDK-identical token minting."""

import base64
import hashlib
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes, PublicKeyTypes


class InvalidKeyError(ValueError):
    """A PEM that is not an EC P-521 or RSA key we can use."""


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _int_bytes(value: int, length: int | None = None) -> bytes:
    length = length or (value.bit_length() + 7) // 8
    return value.to_bytes(length, "big")


def public_jwk(public_key: PublicKeyTypes) -> dict[str, str]:
    """The public key's required JWK members, as RFC 7638 lists them for thumbprints."""
    if isinstance(public_key, ec.EllipticCurvePublicKey):
        if not isinstance(public_key.curve, ec.SECP521R1):
            raise InvalidKeyError("EC keys must use the P-521 curve (ES512).")
        point = public_key.public_numbers()
        return {
            "crv": "P-521",
            "kty": "EC",
            "x": _b64url(_int_bytes(point.x, 66)),
            "y": _b64url(_int_bytes(point.y, 66)),
        }
    if isinstance(public_key, rsa.RSAPublicKey):
        numbers = public_key.public_numbers()
        return {"e": _b64url(_int_bytes(numbers.e)), "kty": "RSA", "n": _b64url(_int_bytes(numbers.n))}
    raise InvalidKeyError("Only EC P-521 and RSA keys are supported.")


def thumbprint(public_key: PublicKeyTypes) -> str:
    """RFC 7638 SHA-256 thumbprint: the `kid` the SDK puts in every token header."""
    canonical = json.dumps(public_jwk(public_key), separators=(",", ":"), sort_keys=True)
    return _b64url(hashlib.sha256(canonical.encode("utf-8")).digest())


def load_public_pem(pem: str) -> PublicKeyTypes:
    try:
        return serialization.load_pem_public_key(pem.encode("ascii"))
    except (ValueError, TypeError) as exc:
        raise InvalidKeyError("Not a PEM encoded public key.") from exc


def load_private_pem(pem: str) -> PrivateKeyTypes:
    try:
        return serialization.load_pem_private_key(pem.encode("ascii"), password=None)
    except (ValueError, TypeError) as exc:
        raise InvalidKeyError("Not an unencrypted PEM encoded private key.") from exc


def algorithm_for(public_key: PublicKeyTypes) -> str:
    return "ES512" if isinstance(public_key, ec.EllipticCurvePublicKey) else "RS512"


def public_pem(private_key: PrivateKeyTypes) -> str:
    return (
        private_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode("ascii")
    )


def generate_private_key() -> tuple[ec.EllipticCurvePrivateKey, str]:
    """A new EC P-521 key (what the SDK signs with) and its PKCS8 PEM."""
    key = ec.generate_private_key(ec.SECP521R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")
    return key, pem


def mint_token(
    private_key_pem: str,
    *,
    scopes: list[str] | None = None,
    expires_in: int = 3600,
    embed: dict[str, Any] | None = None,
    checkout_session_id: str | None = None,
    now: datetime | None = None,
    jti: str | None = None,
) -> str:
    """A bearer token built exactly as the official SDK builds one (header, claims, ES512 signature); `jti` a fresh
    uuid4 unless given (tokens sharing one share an embed token's rate limit budget)."""
    private_key = load_private_pem(private_key_pem)
    if not isinstance(private_key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
        # The same refusal the thumbprint below gives any other key, made before the key is used to sign.
        raise InvalidKeyError("Only EC P-521 and RSA keys are supported.")
    now = now or datetime.now(tz=UTC)
    claims: dict[str, Any] = {
        "scopes": scopes or ["*.read", "*.write"],
        "iss": "payments-server",
        "iat": now,
        "nbf": now,
        "exp": now + timedelta(seconds=expires_in),
        "jti": jti or str(uuid.uuid4()),
    }
    if embed and "embed" in claims["scopes"]:
        claims["embed"] = embed
    if checkout_session_id:
        claims["checkout_session_id"] = checkout_session_id
    algorithm = algorithm_for(private_key.public_key())
    headers = {"kid": thumbprint(private_key.public_key()), "typ": "JWT"}
    return jwt.encode(claims, private_key, algorithm=algorithm, headers=headers)
