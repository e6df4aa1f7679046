"""Stored cards kept at processors: the one place a payment service token is made, dropped, used and revoked
(docs/stored-cards-at-processors.md).

A token is asked of the processor outside any database transaction (its answer is recorded after), so a slow
processor holds no lock; two creates of one method at one service both ask, and the constraint keeps the first one
recorded (the other answers 409 and its token is dropped at the processor).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import replace

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from paymentmethods.models import PaymentMethod
from payments.connectors.base import CardDetails, ProcessorToken
from payments.errors import DomainError, DuplicateRecord, NotFound
from payments.vault.services import vaulted_card_reveal
from paymentservices.models import PaymentService, PaymentServiceToken
from paymentservices.notifications import Matched, ProcessorEvent
from paymentservices.processors import processor_get
from paymentservices.processors.seam import KeptCard, StoredTokens, TokenRefused, TokenUnreached
from paymentservices.selectors import payment_service_get
from paymentservices.services import CredentialsUnusable, payment_service_connector_credentials

logger = logging.getLogger(__name__)

SERVICE_POINTER = "/payment_service_id"
_NOT_FOUND = "The payment service token could not be found."


class TokensNotKept(DomainError):
    """The payment service's processor keeps no stored cards (a 400 naming `/payment_service_id`)."""


def payment_service_token_list(
    *, method: PaymentMethod, payment_service_id: uuid.UUID | None = None
) -> QuerySet[PaymentServiceToken]:
    """The method's tokens, newest first (of one service with `payment_service_id`)."""
    tokens = method.service_tokens.select_related("payment_service").order_by("-created_at", "-id")
    return tokens if payment_service_id is None else tokens.filter(payment_service_id=payment_service_id)


def payment_service_token_get(*, method: PaymentMethod, id: uuid.UUID | str) -> PaymentServiceToken:
    """One token of the method; any other id (or no id at all) is a 404."""
    try:
        key = id if isinstance(id, uuid.UUID) else uuid.UUID(str(id))
    except ValueError:
        raise NotFound(_NOT_FOUND) from None
    token = method.service_tokens.select_related("payment_service").filter(pk=key).first()
    if token is None:
        raise NotFound(_NOT_FOUND)
    return token


def payment_service_tokens_usable(*, method: PaymentMethod | None) -> dict[uuid.UUID, ProcessorToken]:
    """The working tokens of a stored method, by service id: what its payments send to those services instead of the
    card's number (none for a card that is not a stored method's)."""
    if method is None:
        return {}
    working = method.service_tokens.filter(status=PaymentServiceToken.Status.SUCCEEDED, revoked_at__isnull=True)
    return {
        token.payment_service_id: ProcessorToken(token=token.token, customer=token.customer)
        for token in working
        if token.token is not None
    }


def _keeper(service: PaymentService) -> StoredTokens:
    processor = processor_get(service.definition_id)
    if processor is None or processor.tokens is None:
        name = processor.display_name if processor else service.definition_id
        raise TokensNotKept(f"{name} does not keep stored cards: its payments send the card.", pointer=SERVICE_POINTER)
    return processor.tokens


def _service(method: PaymentMethod, payment_service_id: uuid.UUID) -> PaymentService:
    try:
        return payment_service_get(merchant_account=method.merchant_account, id=payment_service_id)
    except NotFound:
        raise DomainError(
            f"The payment service '{payment_service_id}' does not exist for this merchant account.",
            pointer=SERVICE_POINTER,
        ) from None


def _credentials(service: PaymentService) -> dict[str, str] | None:
    """The service's credentials in clear, or None when they cannot be used (nothing is sent then)."""
    try:
        return payment_service_connector_credentials(service=service)
    except CredentialsUnusable:
        return None


def _card(method: PaymentMethod, security_code: str | None) -> CardDetails:
    card = vaulted_card_reveal(card=method.card)
    return replace(card, security_code=security_code) if security_code else card


def payment_service_token_create(
    *, method: PaymentMethod, payment_service_id: uuid.UUID, security_code: str | None = None
) -> PaymentServiceToken:
    """Keep the stored card at the service's processor: `succeeded` with its token, or `failed` with why not (the
    processor refused the card, gave no answer, or the service's credentials cannot be used: a payment would fail the
    same way, and a later create may try again). Refused by name when the service is not the account's or its
    processor keeps no cards; 409 while a working token of the method at that service exists."""
    service = _service(method, payment_service_id)
    keeper = _keeper(service)
    _require_none_working(method, service)
    credentials = _credentials(service)
    if credentials is None:
        return _failed(method, service, "The payment service's credentials cannot be used: nothing was sent.")
    try:
        kept = keeper.keep(credentials=credentials, card=_card(method, security_code), reference=str(method.pk))
    except TokenUnreached as error:
        logger.warning("Payment method %s: service %s gave no answer (%s)", method.pk, service.pk, error)
        return _failed(method, service, f"The processor gave no answer: {error}")
    except TokenRefused as refusal:
        return _failed(method, service, str(refusal))
    try:
        return _record(method, service, status=PaymentServiceToken.Status.SUCCEEDED, kept=kept)
    except IntegrityError:  # a concurrent create recorded its token first: this one is not kept
        _forget(keeper, credentials, kept)
        raise _duplicate() from None


def _failed(method: PaymentMethod, service: PaymentService, reason: str) -> PaymentServiceToken:
    return _record(method, service, status=PaymentServiceToken.Status.FAILED, reason=reason[:500])


def _duplicate() -> DuplicateRecord:
    return DuplicateRecord(
        "The payment method already has a working token at this payment service.", pointer=SERVICE_POINTER
    )


def _require_none_working(method: PaymentMethod, service: PaymentService) -> None:
    if method.service_tokens.filter(payment_service=service, status="succeeded", revoked_at__isnull=True).exists():
        raise _duplicate()


@transaction.atomic
def _record(
    method: PaymentMethod,
    service: PaymentService,
    *,
    status: str,
    kept: KeptCard | None = None,
    reason: str | None = None,
) -> PaymentServiceToken:
    return PaymentServiceToken.objects.create(
        payment_method=method,
        payment_service=service,
        status=status,
        token=kept.token if kept else None,
        customer=kept.customer if kept else None,
        reason=reason,
    )


def _forget(keeper: StoredTokens, credentials: dict[str, str], kept: KeptCard) -> None:
    """Ask the processor to drop a token we no longer send: a failure leaves a token nobody uses, so it is logged."""
    try:
        keeper.forget(credentials=credentials, kept=kept)
    except TokenUnreached as error:
        logger.warning("A payment service token was not dropped at its processor (%s)", error)


def payment_service_token_delete(*, token: PaymentServiceToken) -> None:
    """Drop the token: deleted here, and the processor asked to drop it too (best effort)."""
    with transaction.atomic():
        token.delete()
    processor = processor_get(token.payment_service.definition_id)
    if token.token is None or processor is None or processor.tokens is None:
        return
    try:
        credentials = payment_service_connector_credentials(service=token.payment_service)
    except CredentialsUnusable:
        return
    _forget(processor.tokens, credentials, KeptCard(token=token.token, customer=token.customer))


def payment_service_token_revoke_notified(event: ProcessorEvent) -> Matched:
    """A processor's notification that it no longer keeps a token (`revoked_token`) revokes ours at that service;
    None when the event says no such thing, or names a token we no longer hold (one deleted here, then dropped)."""
    if event.revoked_token is None:
        return None
    tokens = PaymentServiceToken.objects.filter(payment_service=event.payment_service, token=event.revoked_token)
    if not tokens.exists():
        return None
    now = timezone.now()
    tokens.filter(status=PaymentServiceToken.Status.SUCCEEDED, revoked_at__isnull=True).update(
        revoked_at=now, updated_at=now, reason=f"revoked by the processor ({event.event_type})"[:500]
    )
    return True


def payment_service_token_revoke(*, method: PaymentMethod, service: PaymentService, reason: str | None) -> None:
    """Mark the method's working token at `service` revoked (the processor no longer has it): its payments send the
    card again from now on."""
    revoked = method.service_tokens.filter(
        payment_service=service, status=PaymentServiceToken.Status.SUCCEEDED, revoked_at__isnull=True
    ).update(revoked_at=timezone.now(), updated_at=timezone.now(), reason=(reason or "revoked by the processor")[:500])
    if revoked:
        logger.warning("Payment method %s: its token at service %s was revoked by the processor", method.pk, service.pk)
