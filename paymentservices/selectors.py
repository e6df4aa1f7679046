"""Reads of payment services, scoped to one merchant account."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from payments.errors import NotFound
from payments.models import MerchantAccount
from paymentservices.models import InboundNotification, PaymentService

_NOT_FOUND = "The payment service could not be found."


def payment_service_list(*, merchant_account: MerchantAccount, deleted: bool = False) -> QuerySet[PaymentService]:
    """The account's services (the deleted ones instead with `deleted`)."""
    return PaymentService.objects.filter(merchant_account=merchant_account, is_deleted=deleted)


def _uuid(value: uuid.UUID | str) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def payment_service_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> PaymentService:
    """One service of the account; a deleted one is gone to the API (as upstream's), and another account's is a 404,
    exactly like a missing one. The row stays for the payments that name it (their captures reach it by foreign key)."""
    pk = _uuid(id)
    services = PaymentService.objects.filter(merchant_account=merchant_account, is_deleted=False)
    service = None if pk is None else services.filter(pk=pk).first()
    if service is None:
        raise NotFound(_NOT_FOUND)
    return service


def payment_service_for_notification(*, id: uuid.UUID | str) -> PaymentService | None:
    """The service a processor's notification is addressed to, whichever account it belongs to."""
    pk = _uuid(id)
    return None if pk is None else PaymentService.objects.filter(pk=pk, is_deleted=False).first()


def payment_services_in_order(*, merchant_account: MerchantAccount) -> QuerySet[PaymentService]:
    """The account's services that are not deleted, in routing order."""
    return PaymentService.objects.filter(merchant_account=merchant_account, is_deleted=False).order_by(
        "position", "created_at"
    )


def unmatched_notifications() -> QuerySet[InboundNotification]:
    """Processors' notifications a handler looked into and found nothing of ours in, newest first: the operator's."""
    return (
        InboundNotification.objects.filter(matched=False)
        .select_related("payment_service")
        .order_by("-received_at", "-id")
    )
