"""Apple Pay merchant validation: the one call this server makes to Apple, over mutual TLS with the merchant identity
certificate, only to the validation hosts Apple publishes (`APPLE_PAY_VALIDATION_HOSTS`)."""

from __future__ import annotations

import os
import secrets
import ssl
import tempfile
from typing import Any
from urllib.parse import urlsplit

import httpx
from cryptography.hazmat.primitives import serialization
from django.conf import settings

from digitalwallets.keys import PrivateKey
from payments.errors import DomainError


class AppleUnavailable(DomainError):
    """Apple gave no answer in time (504), or answered with anything but a session (502)."""

    status = 502


class AppleTimedOut(AppleUnavailable):
    status = 504


def validation_url_allowed(url: str) -> bool:
    """An `https` URL on one of Apple's validation hosts, with no user name or password in it."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - a malformed port raises here, before anything is sent
    except ValueError:
        return False
    allowed = {name.lower() for name in settings.APPLE_PAY_VALIDATION_HOSTS}
    return parts.scheme == "https" and host is not None and host in allowed and parts.username is None


def _client_context(certificate_pem: str, private_key: PrivateKey) -> ssl.SSLContext:
    """A TLS context that checks Apple's host and presents the merchant identity certificate. `ssl` reads the key
    only from a file: it is written there encrypted under a one-time password, in a private directory removed at
    once, so the key never rests on disk in clear."""
    context = ssl.create_default_context(cafile=settings.APPLE_PAY_CA_BUNDLE or None)
    password = secrets.token_bytes(32)
    sealed = private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(password),
    )
    with tempfile.TemporaryDirectory() as directory:
        certificate_path = os.path.join(directory, "identity.pem")
        key_path = os.path.join(directory, "identity.key")
        with open(certificate_path, "w", encoding="ascii") as file:
            file.write(certificate_pem)
        with open(key_path, "wb") as file:
            file.write(sealed)
        context.load_cert_chain(certificate_path, key_path, password=password)
    return context


def merchant_session(
    *, validation_url: str, certificate_pem: str, private_key: PrivateKey, body: dict[str, str]
) -> dict[str, Any]:
    """Ask Apple for a merchant session; its answer (an opaque object) is returned as it is."""
    context = _client_context(certificate_pem, private_key)
    try:
        with httpx.Client(verify=context, timeout=settings.APPLE_PAY_TIMEOUT_SECONDS, follow_redirects=False) as client:
            response = client.post(validation_url, json=body)
    except httpx.TimeoutException:
        raise AppleTimedOut("Apple Pay merchant validation: Apple did not answer in time.") from None
    except httpx.HTTPError:
        raise AppleUnavailable("Apple Pay merchant validation: Apple could not be reached.") from None
    if response.status_code != 200:
        raise AppleUnavailable(
            f"Apple Pay merchant validation: Apple refused it (HTTP {response.status_code}); check the merchant "
            "identity certificate and that the domain is verified with Apple."
        )
    try:
        session = response.json()
    except ValueError:
        session = None
    if not isinstance(session, dict):
        raise AppleUnavailable("Apple Pay merchant validation: Apple's answer was not a merchant session.")
    return session
