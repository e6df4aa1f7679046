"""Reads of payment services, scoped to one merchant account; each account's routable services held by a process
while it hears every change to them."""

from __future__ import annotations

import copy
import logging
import uuid

from django.core.cache import caches
from django.db import transaction
from django.db.models import QuerySet

from payments.accounts.scope import account_rows
from payments.accounts.selectors import CACHE_ERRORS
from payments.errors import NotFound
from payments.held_states import held_states
from payments.models import MerchantAccount
from paymentservices.models import InboundNotification, PaymentService

logger = logging.getLogger(__name__)

# How long a process trusts its copy of an account's routable services while it hears every change announced: only a
# change made past the services and models (an edit of the table by hand) waits for it.
ROUTABLE_HOLD_SECONDS = 60.0

_NOT_FOUND = "The payment service could not be found."


def payment_service_list(*, merchant_account: MerchantAccount, deleted: bool = False) -> QuerySet[PaymentService]:
    """The account's services (the deleted ones instead with `deleted`)."""
    return account_rows(PaymentService, merchant_account).filter(is_deleted=deleted)


def _uuid(value: uuid.UUID | str) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def payment_service_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> PaymentService:
    """One service of the account; a deleted one is gone to the API (as upstream's), and another account's is a 404,
    exactly like a missing one. The row stays for the payments that name it (their captures reach it by foreign key)."""
    pk = _uuid(id)
    services = payment_service_list(merchant_account=merchant_account)
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
    return payment_service_list(merchant_account=merchant_account).order_by("position", "created_at")


def unmatched_notifications() -> QuerySet[InboundNotification]:
    """Processors' notifications a handler looked into and found nothing of ours in, newest first: the operator's."""
    return (
        InboundNotification.objects.filter(matched=False)
        .select_related("payment_service")
        .order_by("-received_at", "-id")
    )


def payment_services_routable(*, merchant_account: MerchantAccount) -> list[PaymentService]:
    """The account's active services in routing order, each a copy of its own for the caller. Read once and held by
    this process while it hears every change announced (payments/held_states.py): a payment reads them from the
    database again only after a change to them (`payment_services_changed`)."""
    name = _routable_name(merchant_account.pk)
    held = held_states.get(caches["default"], name)
    if not isinstance(held, tuple):
        seen = held_states.changes_seen()
        live = payment_service_list(merchant_account=merchant_account).filter(active=True)
        held = tuple(live.order_by("position", "created_at"))
        held_states.hold(name, held, ROUTABLE_HOLD_SECONDS, seen=seen)
    # Copies (their related objects' cache included): what one request caches on a service is not the next one's.
    return [copy.copy(service) for service in held]


def payment_services_changed(*, merchant_account_id: str) -> None:
    """Called by every change to the account's services (paymentservices/signals.py for a saved or deleted row, the
    services after an `UPDATE` of several): this process stops trusting its copy at once, and every process is told
    once the change commits (a copy read before the commit is dropped by that announcement)."""
    name = _routable_name(merchant_account_id)
    held_states.forget(name)
    transaction.on_commit(lambda: _announce(name))


def _announce(name: str) -> None:
    try:
        held_states.announce(caches["default"], name)
    except CACHE_ERRORS:
        logger.error(
            "The shared cache is unreachable: other processes may route by the payment services as they were for "
            "%s seconds.",
            ROUTABLE_HOLD_SECONDS,
        )


def _routable_name(merchant_account_id: str) -> str:
    # An API key's `kid` never has a colon: the names cannot meet on the shared channel.
    return f"payment-services:{merchant_account_id}"
