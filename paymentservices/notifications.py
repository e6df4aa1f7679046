"""Processors' notifications to a service's `webhook_url`: verified, recorded once, handed to the handlers.

What a verified notification does to a payment belongs to the app that owns payments: `transactions` registers a
handler from its `AppConfig.ready`:

    from paymentservices import notifications
    notifications.register(handle_processor_event)

A handler is called as `handler(event)` with a `ProcessorEvent`, inside the transaction that records the
notification: if it raises, nothing is recorded and the processor's retry brings the notification again. A
notification already recorded (the processor resent it) is acknowledged and not handed to the handlers again.

A handler answers whether the event named something of ours (`Matched`): True when it found the payment, dispute,
payout or report the event is about, False when the event is its kind but names nothing we hold, None when the event
is not its concern. The record keeps the answer (`InboundNotification.matched`: True when any handler found its
object, False when one looked and none found anything, None when no handler was concerned), so a notification we
cannot match is kept and shown to the operator on the desk, never dropped.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

from django.db import IntegrityError, transaction

from payments.errors import DomainError, NotFound
from paymentservices.models import InboundNotification, PaymentService
from paymentservices.processors import processor_get
from paymentservices.processors.seam import NotificationRefused, ParsedNotification
from paymentservices.selectors import payment_service_for_notification
from paymentservices.services import payment_service_credentials

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class ProcessorEvent(ParsedNotification):
    """A verified notification of `payment_service`'s processor about one of its objects (what it says:
    `ParsedNotification`)."""

    payment_service: PaymentService

    @classmethod
    def of(cls, parsed: ParsedNotification, *, payment_service: PaymentService) -> ProcessorEvent:
        said = {item.name: getattr(parsed, item.name) for item in fields(ParsedNotification)}
        return cls(payment_service=payment_service, **said)


# A handler's answer: found what the event names (True), looked and found nothing (False), not its concern (None).
Matched = bool | None
Handler = Callable[[ProcessorEvent], Matched]
_HANDLERS: list[Handler] = []


def register(handler: Handler) -> None:
    """Have every newly verified notification handed to `handler` (once per handler)."""
    if handler not in _HANDLERS:
        _HANDLERS.append(handler)


def unregister(handler: Handler) -> None:
    if handler in _HANDLERS:
        _HANDLERS.remove(handler)


class NotificationRejected(DomainError):
    """Not the processor's notification (a 400); nothing was recorded or changed."""


def notification_receive(*, service_id: uuid.UUID | str, payload: bytes, headers: Mapping[str, str]) -> bool:
    """Verify, record and dispatch one notification; True when it was new, False for a duplicate."""
    service = payment_service_for_notification(id=service_id)
    if service is None:
        raise NotFound("No payment service takes notifications at this URL.")
    processor = processor_get(service.definition_id)
    if processor is None or processor.notification_secret_field is None:
        raise NotFound("This payment service takes no notifications.")
    credentials = payment_service_credentials(service=service)
    secret = credentials.get(processor.notification_secret_field)
    if not secret:
        raise NotificationRejected(
            f"The payment service has no {processor.notification_secret_field} to verify notifications with.",
            location="header",
        )
    try:
        parsed = processor.parse_notification(payload=payload, headers=headers, secret=secret, credentials=credentials)
    except NotificationRefused as exc:
        logger.warning("Refused a notification for payment service %s: %s", service.pk, exc)
        raise NotificationRejected(str(exc), pointer=exc.pointer, location=exc.location) from None
    return _record(ProcessorEvent.of(parsed, payment_service=service))


def _record(event: ProcessorEvent) -> bool:
    try:
        with transaction.atomic():
            record = InboundNotification.objects.create(
                payment_service=event.payment_service,
                event_id=event.event_id,
                event_type=event.event_type,
                object_id=event.object_id[:255],
            )
            record.matched = _matched([handler(event) for handler in list(_HANDLERS)])
            if record.matched is not None:
                record.save(update_fields=["matched"])
    except IntegrityError:
        if InboundNotification.objects.filter(payment_service=event.payment_service, event_id=event.event_id).exists():
            return False  # already handled: the processor resent it
        raise
    return True


def _matched(answers: list[Matched]) -> Matched:
    """Matched when any handler found its object; unmatched when one looked and none found; None when none looked."""
    if any(answer is True for answer in answers):
        return True
    return False if any(answer is False for answer in answers) else None
