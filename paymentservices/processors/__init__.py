"""The processors this server pays through, one folder each (`paymentservices.processors.seam` says what a processor
is). This registry is the one list: the payment service definitions are derived from it. Adding a processor is its
folder, one line here and its library in pyproject.toml (docs/architecture.md, "Adding a processor")."""

from __future__ import annotations

from paymentservices.processors import adyen, paypal, sandbox, stripe
from paymentservices.processors.seam import Processor

PROCESSORS: tuple[Processor, ...] = (
    sandbox.PROCESSOR,
    stripe.PROCESSOR,
    adyen.PROCESSOR,
    paypal.PROCESSOR,
)


def processor_get(definition_id: str) -> Processor | None:
    return next((processor for processor in PROCESSORS if processor.id == definition_id), None)
