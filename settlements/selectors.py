"""Reads of the settlement ledger: what the API, the desk and other apps (reports) ask."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db.models import QuerySet

from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import NotFound
from settlements.models import PAYMENT_KINDS, FetchStatus, LedgerEntry, ReportFetch, SettlementReportFile
from transactions.models import Transaction


def ledger_entries(
    *,
    merchant_account: MerchantAccount,
    kinds: list[str] | None = None,
    posted_from: datetime | None = None,
    posted_before: datetime | None = None,
    transaction_ids: list[uuid.UUID] | None = None,
) -> QuerySet[LedgerEntry]:
    """The account's ledger entries (every kind unless `kinds` says), oldest posted first, each with its
    transaction and report at hand: the rows of a detailed settlement report. `posted_before` is exclusive."""
    entries = account_rows(LedgerEntry, merchant_account)
    if kinds is not None:
        entries = entries.filter(kind__in=kinds)
    if posted_from is not None:
        entries = entries.filter(posted_at__gte=posted_from)
    if posted_before is not None:
        entries = entries.filter(posted_at__lt=posted_before)
    if transaction_ids is not None:
        entries = entries.filter(transaction_id__in=transaction_ids)
    return entries.select_related("transaction", "report").order_by("posted_at", "id")


def transaction_ledger_entries(*, txn: Transaction, kind: str) -> QuerySet[LedgerEntry]:
    """The transaction's entries of one upstream kind, oldest posted first."""
    return LedgerEntry.objects.filter(transaction=txn, kind=kind).order_by("posted_at", "id")


def transaction_ledger_entry(*, txn: Transaction, kind: str, id: str) -> LedgerEntry:
    """One entry of the transaction; another transaction's (or account's) is not found, like a missing one."""
    try:
        pk = uuid.UUID(str(id))
    except ValueError:
        pk = None
    entry = transaction_ledger_entries(txn=txn, kind=kind).filter(pk=pk).first() if pk else None
    if entry is None:
        raise NotFound("The settlement record could not be found.")
    return entry


def unmatched_ledger_entries(*, merchant_account: MerchantAccount | None = None) -> QuerySet[LedgerEntry]:
    """Payment lines that matched none of our transactions, newest first (every account's when none is named)."""
    entries = LedgerEntry.objects.filter(transaction__isnull=True, kind__in=PAYMENT_KINDS)
    if merchant_account is not None:
        entries = entries.filter(merchant_account=merchant_account)
    return entries.select_related("report").order_by("-created_at", "-id")


def mismatched_ledger_entries() -> QuerySet[LedgerEntry]:
    """Lines that do not agree with their transaction (settled grosser than captured), newest first, every
    account's: for the operator."""
    return LedgerEntry.objects.exclude(mismatch="").select_related("report").order_by("-created_at", "-id")


def refused_settlement_files() -> QuerySet[SettlementReportFile]:
    """Files refused whole, newest first, with why: for the operator."""
    return (
        SettlementReportFile.objects.filter(status=SettlementReportFile.Status.REFUSED)
        .select_related("report")
        .order_by("-created_at")
    )


def report_fetches_to_look_into() -> QuerySet[ReportFetch]:
    """Announced reports not fetched: a download that failed (waiting for its next attempt, with why) or a URL
    refused, newest first: for the operator."""
    failed = ReportFetch.objects.filter(status=FetchStatus.PENDING, attempts__gt=0)
    return (failed | ReportFetch.objects.filter(status=FetchStatus.REFUSED)).order_by("-updated_at")
