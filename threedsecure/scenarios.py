"""What a sandbox scenario says: the conditions a payment must meet, and what the issuer then does."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScenarioConditions:
    """Every condition set must hold for a payment to match; None means "any"."""

    amount: int | None = None
    card_number: str | None = None
    email_address: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    external_identifier: str | None = None


@dataclass(frozen=True)
class ScenarioOutcome:
    """What the sandbox's issuer answers: the 3DS version, the authentication status (EMV `transStatus`, or
    `timeout`), and, for a challenge (`C`) only, how the challenge ends."""

    authentication: str
    version: str | None = None
    result: str | None = None
