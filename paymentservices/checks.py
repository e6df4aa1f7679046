"""System checks: what the sandbox rule means for this server, said at start."""

from __future__ import annotations

from collections.abc import Sequence

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.db import DatabaseError


def sandbox_services_refused(
    app_configs: Sequence[AppConfig] | None, databases: Sequence[str] | None = None, **kwargs: object
) -> list[checks.CheckMessage]:
    """A production server without SANDBOX_PAYMENTS refuses every `mock-card` service: say how many are configured.

    Reads the database, so it runs where checks are given one (`migrate`, `check --database default`)."""
    from paymentservices import processors
    from paymentservices.models import PaymentService
    from paymentservices.sandbox import sandbox_payments_allowed

    if sandbox_payments_allowed() or not databases:
        return []
    sandbox_ids = [processor.id for processor in processors.PROCESSORS if processor.sandbox]
    try:
        count = PaymentService.objects.filter(definition_id__in=sandbox_ids, is_deleted=False, active=True).count()
    except DatabaseError:  # not migrated yet: nothing configured
        return []
    if not count:
        return []
    return [
        checks.Warning(
            f"{count} active mock-card payment service(s) will refuse every payment: this is a production server "
            "(DJANGO_DEBUG=false) and SANDBOX_PAYMENTS is not set.",
            hint="Configure a real processor for those merchant accounts (docs/payment-services.md), or set "
            "SANDBOX_PAYMENTS=true on a server that must take test payments only.",
            id="paymentservices.W001",
        )
    ]


def sandbox_payments_on(app_configs: Sequence[AppConfig] | None, **kwargs: object) -> list[checks.CheckMessage]:
    """A production server with SANDBOX_PAYMENTS approves test cards without moving money: make it visible."""
    if settings.DEBUG or not settings.SANDBOX_PAYMENTS:
        return []
    return [
        checks.Warning(
            "SANDBOX_PAYMENTS is true: mock-card payment services approve payments on this production server "
            "without moving any money.",
            hint="Unset it unless this server only ever takes test payments.",
            id="paymentservices.W002",
        )
    ]


# A payment's time with processors stays under this (the bound): a client waits for the answer.
MAX_ROUTING_SECONDS = 15


def routing_time_bounded(app_configs: Sequence[AppConfig] | None, **kwargs: object) -> list[checks.CheckMessage]:
    """PAYMENT_ROUTING_SECONDS bounds one payment's failover: at least 0, under 15 s."""
    seconds = settings.PAYMENT_ROUTING_SECONDS
    if 0 <= seconds < MAX_ROUTING_SECONDS:
        return []
    return [
        checks.Error(
            f"PAYMENT_ROUTING_SECONDS is {seconds}: one payment's time with processors, failover included, must be "
            f"at least 0 and under {MAX_ROUTING_SECONDS} seconds.",
            hint="The default is 12 (docs/payment-services.md, 'Routing and failover rules').",
            id="paymentservices.E001",
        )
    ]


def register() -> None:
    checks.register(sandbox_services_refused, checks.Tags.database)
    checks.register(sandbox_payments_on, deploy=True)
    checks.register(routing_time_bounded)
