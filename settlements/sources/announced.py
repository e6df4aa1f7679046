"""Settlement reports a processor's notification announced (the seam's `AvailableReport`), for every processor alike.

A report its processor takes (`Settlements.takes`) is kept as a `ReportFetch` inside the notification's own
transaction, its URL only when it is on the processor's report hosts (`Settlements.report_allowed`; else the fetch is
`refused`, shown to the operator), and a job downloads it with the service's credentials (`Settlements.download`) and
ingests it. A download that fails stays `pending` with the reason (on the desk), is tried again after
`RETRY_SECONDS`, then by every `ingest-settlements` run until it succeeds: an announced report is never lost.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django_tasks import task

from payments.accounts.models import MerchantAccount
from paymentservices.models import PaymentService
from paymentservices.notifications import Matched, ProcessorEvent
from paymentservices.processors import processor_get
from paymentservices.processors.seam import Processor
from paymentservices.processors.settling import SettlementUnread
from paymentservices.services import CredentialsUnusable, payment_service_connector_credentials
from settlements.models import FetchStatus, ReportFetch
from settlements.services import IngestResult, Outcome, SettlementFile, settlement_file_ingest

logger = logging.getLogger(__name__)

# How long after a failed download the job tries again; after the last, each `ingest-settlements` run tries.
RETRY_SECONDS = (60, 300, 1800)


def _processor(definition_id: str) -> Processor | None:
    """The service's processor when it publishes settlement records."""
    processor = processor_get(definition_id)
    return processor if processor is not None and processor.settlements is not None else None


def settlements_report_ingest(
    *,
    processor: Processor,
    merchant_account: MerchantAccount,
    payment_service: PaymentService | None,
    file_name: str,
    content: bytes,
) -> IngestResult:
    """Ingest one announced report as its processor published it (`file_name` is the name its notification gives,
    e.g. Adyen's `settlement_detail_report_batch_123.csv`), read by the processor."""
    if processor.settlements is None:
        raise ValueError(f"{processor.id} publishes no settlement reports.")
    file = SettlementFile(
        source=processor.id,
        report_name=file_name,
        name=file_name,
        content=content,
        read=processor.settlements.read,
    )
    return settlement_file_ingest(merchant_account=merchant_account, payment_service=payment_service, file=file)


def settlements_report_announced(event: ProcessorEvent) -> Matched:
    """A notification handler (registered by the app): keep a settlement report the processor announced and queue
    its download once the notification commits (a refused one is kept and shown with its reason): either way the
    report is matched. Other reports and events are not ours."""
    report = event.report
    service = event.payment_service
    processor = _processor(service.definition_id)
    if report is None or processor is None or processor.settlements is None:
        return None
    if not processor.settlements.takes(report):
        return None
    allowed = processor.settlements.report_allowed(report.url)
    fetch, created = ReportFetch.objects.get_or_create(
        payment_service=service,
        name=report.name,
        defaults={
            "merchant_account_id": service.merchant_account_id,
            "source": service.definition_id,
            "url": report.url if allowed else "",
            "status": FetchStatus.PENDING if allowed else FetchStatus.REFUSED,
            "message": ""
            if allowed
            else f"The report's URL is not on {processor.display_name}'s report hosts: it was not kept nor fetched.",
        },
    )
    if not allowed:
        logger.warning(
            "Report %s of payment service %s refused: its URL is not its processor's", report.name, service.pk
        )
    elif created:
        transaction.on_commit(lambda: fetch_announced_report.enqueue(str(fetch.pk)))
    return True


@task()
def fetch_announced_report(fetch_id: str) -> None:
    """Download and ingest one announced report (queued by the notification, and again after a failure)."""
    settlements_report_fetch(fetch_id=uuid.UUID(fetch_id))


def settlements_fetch_pending(*, source: str) -> list[IngestResult]:
    """Every report of `source` announced and not fetched yet, oldest first: the `ingest-settlements` job's part."""
    pending = ReportFetch.objects.filter(source=source, status=FetchStatus.PENDING).order_by("created_at")
    results = [settlements_report_fetch(fetch_id=pk) for pk in pending.values_list("pk", flat=True)]
    return [result for result in results if result is not None]


def settlements_report_fetch(*, fetch_id: uuid.UUID) -> IngestResult | None:
    """Download the report (its URL checked again before use) with the service's credentials and ingest it; a
    failed download stays pending with the reason and is queued again. None when there was nothing to do (fetched
    already, refused, or another worker holds it) or the download failed. A report that breaks what reads it stays
    pending with why, as a failed download does, and is answered as failed: it never stops the reports after it."""
    try:
        return _fetch(fetch_id)
    except Exception as error:
        logger.exception("Report fetch %s broke; it stays pending", fetch_id)
        return _broke(fetch_id, error)


def _broke(fetch_id: uuid.UUID, error: Exception) -> IngestResult | None:
    with transaction.atomic():
        fetch = ReportFetch.objects.select_for_update().filter(pk=fetch_id, status=FetchStatus.PENDING).first()
        if fetch is None:
            return None
        fetch.attempts += 1
        _failed(fetch, f"The report could not be ingested ({type(error).__name__}); it is tried again.")
    return IngestResult(Outcome.FAILED, None, message=f"{fetch.name}: {fetch.message}")


def _fetch(fetch_id: uuid.UUID) -> IngestResult | None:
    with transaction.atomic():
        fetch = (
            ReportFetch.objects.select_for_update(skip_locked=True)
            .select_related("payment_service", "merchant_account")
            .filter(pk=fetch_id, status=FetchStatus.PENDING)
            .first()
        )
        if fetch is None:
            return None
        fetch.attempts += 1
        service = fetch.payment_service
        processor = _processor(service.definition_id)
        try:
            if processor is None:
                raise SettlementUnread("The service's processor publishes no settlement reports; nothing was sent.")
            content = _download(processor, service, fetch.url)
        except (SettlementUnread, CredentialsUnusable) as error:
            _failed(fetch, str(error))
            return None
        result = settlements_report_ingest(
            processor=processor,
            merchant_account=fetch.merchant_account,
            payment_service=service,
            file_name=fetch.name,
            content=content,
        )
        fetch.status = FetchStatus.FETCHED
        fetch.message = result.message if result.outcome == Outcome.REFUSED else ""
        fetch.save(update_fields=["status", "attempts", "message", "updated_at"])
    return result


def _download(processor: Processor, service: PaymentService, url: str) -> bytes:
    """The report's bytes, its URL checked again before anything is sent."""
    if processor.settlements is None:
        raise SettlementUnread("The service's processor publishes no settlement reports; nothing was sent.")
    if not processor.settlements.report_allowed(url):
        raise SettlementUnread(f"The report URL is not on {processor.display_name}'s report hosts; nothing was sent.")
    credentials = payment_service_connector_credentials(service=service)
    return processor.settlements.download(url=url, credentials=credentials)


def _failed(fetch: ReportFetch, message: str) -> None:
    fetch.message = message
    fetch.save(update_fields=["attempts", "message", "updated_at"])
    logger.warning("Report %s not fetched (attempt %d): %s", fetch.name, fetch.attempts, message)
    if fetch.attempts <= len(RETRY_SECONDS):
        retry_at = timezone.now() + timedelta(seconds=RETRY_SECONDS[fetch.attempts - 1])
        fetch_id = str(fetch.pk)
        transaction.on_commit(lambda: fetch_announced_report.using(run_after=retry_at).enqueue(fetch_id))
