"""Where settlement files come from: one module per processor, each fetching its files and reading them into
`services.ParsedEntry`; `services.settlement_file_ingest` records them the same way for all.

`settlements_ingest` is what the job engine runs on a schedule (`SCHEDULED_JOBS["ingest-settlements"]`) and what
`manage.py ingest_settlements` runs on demand (or enqueues, with `--enqueue`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import import_module
from typing import Any

from django.utils.module_loading import import_string

from settlements.services import IngestResult, Outcome

logger = logging.getLogger(__name__)

# Each source's entry point: a function of no required argument that ingests what is new and returns the results.
SOURCES: dict[str, str] = {
    "sandbox": "settlements.sources.sandbox.settlements_sandbox_ingest",
    "stripe": "settlements.sources.stripe.settlements_stripe_ingest",
    "adyen": "settlements.sources.adyen.settlements_adyen_fetch_pending",
}


def settlement_definition_ids() -> set[str]:
    """The payment service definitions whose settlement reports the sources fetch (each module's DEFINITION_ID)."""
    return {import_module(path.rpartition(".")[0]).DEFINITION_ID for path in SOURCES.values()}


def settlements_ingest(*, sources: list[str] | None = None) -> dict[str, list[Any]]:
    """Ingest what each source has that is new; one source failing (a processor that does not answer) leaves the
    others to run, and is logged for the operator and answered as a failed result (the command exits non-zero)."""
    unknown = sorted(set(sources or []) - set(SOURCES))
    if unknown:
        raise ValueError(f"Unknown settlement source(s): {', '.join(unknown)}; known: {', '.join(SOURCES)}.")
    results: dict[str, list[Any]] = {}
    for name in sources or list(SOURCES):
        ingest: Callable[[], list[Any]] = import_string(SOURCES[name])
        try:
            results[name] = ingest()
        except Exception as error:
            logger.exception("Settlement source %s failed; the next run tries again", name)
            message = f"The {name} source failed ({type(error).__name__}); the next run tries again."
            results[name] = [IngestResult(Outcome.FAILED, None, message=message)]
    return results
