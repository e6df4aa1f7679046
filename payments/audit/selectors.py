"""Reads of the audit log."""

from __future__ import annotations

from django.db.models import QuerySet

from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.audit.models import AuditLogEntry


def audit_log_list(*, merchant_account: MerchantAccount) -> QuerySet[AuditLogEntry]:
    """The account's entries; pagination orders them, newest first."""
    return account_rows(AuditLogEntry, merchant_account)
