"""Where settlement files come from: each processor of the registry that declares `settlements` (the seam's
`paymentservices.processors.settling`) is a source, named by the processor's id. Its files are pulled (for each of
its payment services, deleted ones too: their payments still settle) and/or announced by its notifications
(`announced`); it reads them into lines and `services.settlement_file_ingest` records them the same way for all.
The sandbox's own publication from the server's records (`sandbox`) runs with its source.

`settlements_ingest` is what the job engine runs on a schedule (`SCHEDULED_JOBS["ingest-settlements"]`) and what
`manage.py ingest_settlements` runs on demand (or enqueues, with `--enqueue`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db.models import Q

from paymentservices import processors
from paymentservices.models import PaymentService
from paymentservices.processors import processor_get
from paymentservices.processors.sandbox import PROCESSOR as SANDBOX_PROCESSOR
from paymentservices.processors.seam import Processor
from paymentservices.processors.settling import Ledger, SettlementUnread
from paymentservices.services import CredentialsUnusable, payment_service_connector_credentials
from settlements.models import FileStatus, LedgerEntry, SettlementReportFile
from settlements.services import IngestResult, Outcome, SettlementFile, settlement_file_ingest
from settlements.sources.announced import settlements_fetch_pending
from settlements.sources.sandbox import settlements_sandbox_ingest

logger = logging.getLogger(__name__)

# What a source publishes from the server's own records, beside what its processor is asked.
PUBLISHED: dict[str, Callable[[], list[IngestResult]]] = {SANDBOX_PROCESSOR.id: settlements_sandbox_ingest}


def settlement_sources() -> list[str]:
    """The sources, in the registry's order: the ids of the processors whose settlement records are read (the
    registry as it is when asked)."""
    return [processor.id for processor in processors.PROCESSORS if processor.settlements is not None]


def settlement_definition_ids() -> set[str]:
    """The payment service definitions whose settlement reports are fetched: a service of one takes
    `settlement_reporting_enabled`."""
    return set(settlement_sources())


def settlements_ingest(*, sources: list[str] | None = None) -> dict[str, list[IngestResult]]:
    """Ingest what each source has that is new; one source failing (a processor that does not answer) leaves the
    others to run, and is logged for the operator and answered as a failed result (the command exits non-zero)."""
    known = settlement_sources()
    unknown = sorted(set(sources or []) - set(known))
    if unknown:
        raise ValueError(f"Unknown settlement source(s): {', '.join(unknown)}; known: {', '.join(known)}.")
    results: dict[str, list[IngestResult]] = {}
    for name in sources or known:
        try:
            results[name] = settlements_source_ingest(source=name)
        except Exception as error:
            logger.exception("Settlement source %s failed; the next run tries again", name)
            message = f"The {name} source failed ({type(error).__name__}); the next run tries again."
            results[name] = [IngestResult(Outcome.FAILED, None, message=message)]
    return results


def settlements_source_ingest(*, source: str) -> list[IngestResult]:
    """One source's run: what is published from our records, what each of its services' processor has that is new,
    then every report it announced and that is not fetched yet."""
    processor = processor_get(source)
    if processor is None or processor.settlements is None:
        raise ValueError(f"{source} is not a settlement source.")
    results = PUBLISHED[source]() if source in PUBLISHED else []
    if processor.settlements.pulls:
        for service in PaymentService.objects.filter(definition_id=source).order_by("created_at"):
            results += _pull(processor, service)
    return results + settlements_fetch_pending(source=source)


def _pull(processor: Processor, service: PaymentService) -> list[IngestResult]:
    """The files the processor answers for one service, each ingested as it comes (oldest first), so a run that stops
    leaves no gap. A service the processor does not answer for (or whose key is refused) is logged and left for the
    next run."""
    settlements = processor.settlements
    if settlements is None:
        return []
    results: list[IngestResult] = []
    try:
        credentials = payment_service_connector_credentials(service=service)
        for pulled in settlements.pull(credentials=credentials, ledger=_ledger(service)):
            file = SettlementFile(
                source=processor.id,
                report_name=f"{pulled.report_name} {service.pk}",
                name=pulled.name,
                content=pulled.content,
                read=settlements.read,
            )
            results.append(
                settlement_file_ingest(merchant_account=service.merchant_account, payment_service=service, file=file)
            )
    except (CredentialsUnusable, SettlementUnread) as error:
        logger.warning(
            "%s settlements of payment service %s not read (%s): %s",
            processor.display_name,
            service.pk,
            type(error).__name__,
            error,
        )
    return results


def _ledger(service: PaymentService) -> Ledger:
    """What the ledger holds of the service's records: its processor reads down to it."""

    def known(keys: list[str]) -> set[str]:
        entries = LedgerEntry.objects.filter(
            merchant_account_id=service.merchant_account_id, source=service.definition_id, entry_key__in=keys
        )
        return set(entries.values_list("entry_key", flat=True))

    def ingested(report_name: str, prefix: str) -> set[str]:
        files = SettlementReportFile.objects.filter(
            Q(name__startswith=prefix),
            report__merchant_account_id=service.merchant_account_id,
            report__source=service.definition_id,
            report__name=f"{report_name} {service.pk}",
            status=FileStatus.INGESTED,
        )
        return set(files.values_list("name", flat=True))

    return Ledger(known=known, ingested=ingested)
