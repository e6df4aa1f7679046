"""The `mock-card` connector: the sandbox of `payments.connectors.sandbox`, unchanged. It takes no credentials."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from payments.connectors.base import PaymentConnector
from payments.connectors.sandbox import SandboxConnector


def connector(credentials: Mapping[str, str], *, deadline: float | None = None) -> PaymentConnector:
    # The sandbox declares its option keys per instance; it is a PaymentConnector all the same (checked at run time).
    return cast(PaymentConnector, SandboxConnector())


def verify_credentials(credentials: Mapping[str, str]) -> None:
    """Nothing to check: the sandbox has no account."""
    return None
