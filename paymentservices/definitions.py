"""What the payment service definitions say beyond their processors: a definition is a registered processor
(`paymentservices.processors.processor_get`, its `id` the definition id), rendered by `GET
/payment-service-definitions`. Definitions are code, not rows: a merchant account's services are made from them.
"""

from __future__ import annotations

from paymentservices.processors import PROCESSORS
from paymentservices.processors.seam import Processor

# The built-in sandbox's definition id (the registered processor that says `sandbox`): what a new account is given
# where sandbox payments are allowed.
SANDBOX_ID = next(processor.id for processor in PROCESSORS if processor.sandbox)


# The definitions whose settlement reports a source of the app that fetches them reads: registered by that app from
# its sources (settlements.apps), so `settlement_reporting_enabled` is taken exactly where it is acted on.
_SETTLEMENT_REPORTS: set[str] = set()


def settlement_reports_register(*definition_ids: str) -> None:
    """Say that the settlement reports of these definitions' services are fetched."""
    unknown = set(definition_ids) - {processor.id for processor in PROCESSORS}
    if unknown:
        raise ValueError(f"No definition {', '.join(sorted(unknown))} is shipped.")
    _SETTLEMENT_REPORTS.update(definition_ids)


def settlement_reports_fetched(processor: Processor) -> bool:
    """Whether this server fetches the settlement reports of the processor's services (a source registered it)."""
    return processor.id in _SETTLEMENT_REPORTS
