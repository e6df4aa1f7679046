"""Report files: written a row at a time to a temporary file, stored through Django's storage API (the `reports`
storage: the file system by default, any S3-compatible store through django-storages), handed out only through a
signed URL that expires, and deleted after the retention (docs/reports.md).
"""

from __future__ import annotations

import csv
import io
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import IO, Any

from django.conf import settings
from django.core import signing
from django.core.files import File
from django.core.files.storage import Storage, storages
from django.db import transaction
from django.utils import timezone

from payments.spreadsheets import spreadsheet_cell
from reports.models import ExecutionStatus, FileFormat, ReportExecution

STORAGE_ALIAS = "reports"
_SIGNING_SALT = "reports.download"
CONTENT_TYPES = {
    FileFormat.CSV: "text/csv; charset=utf-8",
    FileFormat.XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def report_storage() -> Storage:
    return storages[STORAGE_ALIAS]


def write_csv(out: IO[bytes], header: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Write the rows as UTF-8 CSV (RFC 4180, CRLF); returns how many rows."""
    text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
    writer = csv.writer(text)
    writer.writerow(header)
    count = 0
    for row in rows:
        writer.writerow([spreadsheet_cell(value) for value in row])
        count += 1
    text.flush()
    text.detach()
    return count


def write_xlsx(out: IO[bytes], header: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Write the rows as one XLSX sheet in openpyxl's write-only mode (rows go to disk as they come)."""
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("report")
    sheet.append(list(header))
    count = 0
    for row in rows:
        sheet.append([_xlsx_cell(value) for value in row])
        count += 1
    workbook.save(out)
    return count


def _xlsx_cell(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value[:1] == "=":
        return "'" + value
    return value


WRITERS = {FileFormat.CSV: write_csv, FileFormat.XLSX: write_xlsx}


@contextmanager
def spooled_file() -> Iterator[IO[bytes]]:
    """A temporary file on disk (never in memory, whatever the report's size), removed afterwards."""
    with tempfile.TemporaryFile(dir=settings.REPORTS_TEMP_DIR or None) as handle:
        yield handle


def report_file_store(
    *, execution: ReportExecution, header: Sequence[str], rows: Iterable[Sequence[Any]]
) -> tuple[str, int, int]:
    """Write and store the execution's file; returns its storage name, size in bytes and row count."""
    file_format = FileFormat(execution.file_format)
    with spooled_file() as handle:
        count = WRITERS[file_format](handle, header, rows)
        size = handle.tell()
        handle.seek(0)
        day = execution.reference_timestamp.strftime("%Y/%m/%d")
        wanted = f"{execution.report.merchant_account_id}/{day}/{execution.pk}.{file_format.value}"
        name = report_storage().save(wanted, File(handle, name=wanted))
    return name, size, count


def download_file_name(execution: ReportExecution) -> str:
    """The name a download is saved under: the report's name and day, with no control or format character (a
    right-to-left override would show `cod.exe` as `exe.doc`; a line break would split the header), never empty."""
    shown = "".join(
        char for char in execution.report.name if not unicodedata.category(char).startswith(("C", "Zl", "Zp"))
    ).strip()
    return f"{shown or 'report'}-{execution.reference_timestamp:%Y-%m-%d}.{execution.file_format}"


# --- signed download URLs -----------------------------------------------------------------------------------


class DownloadRefused(Exception):
    """The download URL is not one this server signed, or it has expired."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def download_token(*, execution: ReportExecution, expires_in: timedelta) -> str:
    """A token naming the execution and when it stops working (a Unix time), signed with the server's key."""
    expires_at = int((timezone.now() + expires_in).timestamp())
    return signing.Signer(salt=_SIGNING_SALT).sign_object({"e": str(execution.pk), "x": expires_at}, compress=False)


def download_token_read(token: str, *, now: datetime | None = None) -> str:
    """The execution id a token names; DownloadRefused when it is forged, altered or expired."""
    try:
        payload = signing.Signer(salt=_SIGNING_SALT).unsign_object(token)
        execution_id, expires_at = str(payload["e"]), int(payload["x"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise DownloadRefused("The download URL is not valid.") from None
    if (now or timezone.now()).timestamp() >= expires_at:
        raise DownloadRefused("The download URL has expired: ask for a new one.")
    return execution_id


# --- retention ----------------------------------------------------------------------------------------------


def report_files_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Delete one batch of files older than REPORT_FILE_RETENTION_DAYS; the execution stays, marked as such."""
    cutoff = now - timedelta(days=settings.REPORT_FILE_RETENTION_DAYS)
    with transaction.atomic():
        expired = list(
            ReportExecution.objects.select_for_update(skip_locked=True)
            .filter(status=ExecutionStatus.SUCCEEDED, file_deleted_at__isnull=True, finished_at__lte=cutoff)
            .exclude(file_name="")[:batch_size]
        )
        storage = report_storage()
        for execution in expired:
            storage.delete(execution.file_name)
            execution.file_deleted_at = timezone.now()
            execution.save(update_fields=["file_deleted_at", "updated_at"])
    return len(expired)
