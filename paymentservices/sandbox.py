"""No sandbox money in production: the one rule deciding whether a `mock-card` service may answer.

A development server (DJANGO_DEBUG true) always may; a production server only when the operator set
`SANDBOX_PAYMENTS=true`. Creating a `mock-card` service and routing a payment to one both ask this module, and so
does switching on `three_d_secure_enabled`: the 3-D Secure this server runs is the sandbox's.
"""

from __future__ import annotations

from django.conf import settings

from payments.errors import DomainError

REFUSAL = (
    "The mock-card sandbox approves payments without moving money, so a production server (DJANGO_DEBUG=false) "
    "refuses it unless SANDBOX_PAYMENTS=true is set."
)


THREE_D_SECURE_REFUSAL = (
    "3-D Secure on this server is the sandbox's (scenarios and test cards, no directory server), whose results are "
    "no real authentication, so a production server (DJANGO_DEBUG=false) refuses it unless SANDBOX_PAYMENTS=true."
)


class SandboxRefused(DomainError):
    """A `mock-card` service asked for where sandbox payments are off."""


def sandbox_payments_allowed() -> bool:
    """Whether a `mock-card` service may be created or answer a payment on this server."""
    return bool(settings.DEBUG or settings.SANDBOX_PAYMENTS)


def sandbox_require(*, pointer: str | None = None, reason: str = REFUSAL) -> None:
    """Raise `SandboxRefused` (a 400 naming `pointer`) unless sandbox payments are allowed here."""
    if not sandbox_payments_allowed():
        raise SandboxRefused(reason, pointer=pointer)
