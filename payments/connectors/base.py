"""What services may ask of a payment processor, and what it answers.

Services talk to a processor only through `PaymentConnector`; which implementation runs is the
`PAYMENT_CONNECTOR` setting, so a real processor can be added without touching services or the API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable


class Outcome(StrEnum):
    """How the processor answered: `declined` is the issuer's refusal, `failed` means no answer could be had."""

    APPROVED = "approved"
    DECLINED = "declined"
    FAILED = "failed"


@dataclass(frozen=True)
class CardDetails:
    """Clear card data, held in memory only for the one call that needs it."""

    # repr=False: a log line, an assertion message or a traceback that shows this object never shows the card.
    number: str = field(repr=False)
    expiration_month: int
    expiration_year: int
    security_code: str | None = field(default=None, repr=False)
    scheme: str | None = None


@dataclass(frozen=True)
class ConnectorResult:
    """The processor's answer; `processor_reference` names the operation for later captures, voids and refunds."""

    outcome: Outcome
    processor_reference: str | None = None
    error_code: str | None = None
    raw_response_code: str | None = None
    raw_response_description: str | None = None
    cvv_response_code: str | None = None

    @property
    def approved(self) -> bool:
        return self.outcome is Outcome.APPROVED


@runtime_checkable
class PaymentConnector(Protocol):
    """A processor. Every method is called outside database transactions and must not raise for a refusal:
    declines and failures come back as results; an exception means the outcome is unknown."""

    def authorize(
        self, *, card: CardDetails, amount: int, currency: str, capture: bool, reference: str
    ) -> ConnectorResult:
        """Authorize `amount` on the card (and capture it at once when `capture`)."""
        ...

    def capture(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        """Capture `amount` of an earlier authorization."""
        ...

    def void(self, *, processor_reference: str, reference: str) -> ConnectorResult:
        """Release an uncaptured authorization."""
        ...

    def refund(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        """Return `amount` of a captured payment to the card."""
        ...

    def lookup(self, *, reference: str) -> ConnectorResult | None:
        """What became of the operation sent with our `reference`: the processor's answer as it gave it, or None
        when the processor never received (or never decided) it. Asked when a crash left the outcome unknown."""
        ...
