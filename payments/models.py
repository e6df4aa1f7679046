"""Every table of the shared app, each defined in the sub-package that owns it (Django finds an app's tables
through its `models` module, so this module imports them all; they keep the `payments` app label and tables).
Resource apps import the two they build on from here: `MerchantAccount` and `TimestampedModel`."""

from payments.accounts.models import ApiKey, MerchantAccount
from payments.audit.models import AuditLogEntry
from payments.bins.models import BinRange
from payments.connectors.models import SandboxOperation
from payments.jobs.models import BackgroundTask, ScheduledRun
from payments.outbox.models import OutboxEvent
from payments.ratelimits.models import RateLimitEvent
from payments.rest.models import IdempotencyRecord
from payments.timestamped import TimestampedModel
from payments.vault.models import VaultedCard, VaultedSecurityCode

__all__ = [
    "ApiKey",
    "AuditLogEntry",
    "BackgroundTask",
    "BinRange",
    "IdempotencyRecord",
    "MerchantAccount",
    "OutboxEvent",
    "RateLimitEvent",
    "SandboxOperation",
    "ScheduledRun",
    "TimestampedModel",
    "VaultedCard",
    "VaultedSecurityCode",
]
