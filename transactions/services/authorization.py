"""Step 3 of a create: the processor's answer to an authorization becomes the transaction's status."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone

from paymentmethods.models import PaymentMethod
from paymentmethods.services import (
    CardToStore,
    payment_method_mark_replaced,
    payment_method_store,
    payment_method_update,
)
from payments.choices import PaymentIntent
from payments.connectors import (
    BuyerActionConnector,
    ConnectorResult,
    Outcome,
)
from paymentservices.models import PaymentService
from transactions.models import (
    CaptureStatus,
    RowChanged,
    Transaction,
    TransactionStatus,
)
from transactions.services.authentication import challenge_begin
from transactions.services.state import (
    SYSTEM,
    Actor,
    answer_fields,
    capture_book,
    connector_of,
    locked_as_held,
    locked_for_update,
    move_to,
    record_event,
    release_on_commit,
    return_gift_cards,
)

S = TransactionStatus
# What an operation the processor never received is recorded as, once no request can still be sending it.
NEVER_RECEIVED = ConnectorResult(
    outcome=Outcome.FAILED,
    error_code="service_error",
    raw_response_description="The processor has no record of this operation: it did not happen.",
)


# What the processor tells beyond its codes, kept in the transaction's columns of the same names.
PROCESSOR_DETAILS = (
    "cvv_response_code",
    "auth_response_code",
    "avs_response_code",
    "scheme_transaction_id",
    "merchant_advice_code",
    "iso_response_code",
    "approval_expires_at",
    "payer_label",
)


def _keep_scheme_transaction_id(txn: Transaction, method: PaymentMethod | None, result: ConnectorResult) -> None:
    """The scheme's id of a customer-initiated payment with a stored method is kept with the method (when it has
    none): the later merchant-initiated payments of the method send it, as card schemes ask."""
    if method is None or txn.merchant_initiated or not result.scheme_transaction_id:
        return
    if method.scheme_transaction_id is None:
        payment_method_update(method=method, scheme_transaction_id=result.scheme_transaction_id)


def _service_named(service: PaymentService) -> dict[str, Any]:
    return {"payment_service_id": str(service.pk), "payment_service_definition_id": service.definition_id}


@transaction.atomic
def record_failover(
    txn: Transaction, *, failed: PaymentService, result: ConnectorResult, following: PaymentService, actor: Actor
) -> bool:
    """`failed` gave no answer, or a retryable decline it cascades: record its attempt (an event naming it and its
    answer) and make `following` the service being asked, before it is. False (nothing recorded) when the
    transaction is no longer waiting for its authorization (canceled meanwhile). The last attempt is the event of
    the status it ends in, naming its service too."""
    txn = locked_for_update(txn)
    if txn.status != S.PROCESSING:
        return False
    declined = result.outcome is Outcome.DECLINED
    record_event(
        txn,
        name="authorization_attempt_declined" if declined else "authorization_attempt_failed",
        actor=actor,
        from_status=txn.status,
        amount=None,
        **_service_named(failed),
        error_code=result.error_code,
        raw_response_code=result.raw_response_code,
        raw_response_description=result.raw_response_description,
        payment_service_transaction_id=result.processor_reference,
        next_payment_service_id=str(following.pk),
    )
    txn.payment_service = following
    txn.save(update_fields=["payment_service", "updated_at"])
    return True


@transaction.atomic
def settle_gift_cards_only(txn: Transaction, *, actor: Actor) -> Transaction:
    """Gift cards alone: their debits are the authorization (and the capture, for `intent: capture`)."""
    txn = locked_for_update(txn)
    now = timezone.now()
    if txn.intent == PaymentIntent.CAPTURE:
        move_to(txn, S.CAPTURE_SUCCEEDED, name="capture_succeeded", actor=actor, authorized_at=now, captured_at=now)
    else:
        move_to(txn, S.AUTHORIZATION_SUCCEEDED, name="authorization_succeeded", actor=actor, authorized_at=now)
    return txn


def _buyer_can_act(txn: Transaction) -> bool:
    connector = connector_of(txn)
    return isinstance(connector, BuyerActionConnector) and connector.buyer_can_act


def _buyer_cannot_act(result: ConnectorResult, *, has_redirect_url: bool) -> ConnectorResult:
    """The processor waits for a buyer who cannot be sent to it: the payment is declined as upstream declines a
    payment that needed 3-D Secure, saying why."""
    why = (
        "the payment service has no publishable key for the authentication page."
        if has_redirect_url
        else "the payment has no payment_method.redirect_url to send the buyer back to."
    )
    return ConnectorResult(
        outcome=Outcome.DECLINED,
        processor_reference=result.processor_reference,
        error_code="requires_three_d_secure",
        raw_response_code=result.raw_response_code,
        raw_response_description=f"The card issuer asks for 3-D Secure authentication, and {why}",
    )


def record_authorization(
    txn: Transaction,
    *,
    result: ConnectorResult,
    card_amount: int,
    actor: Actor,
    keep: CardToStore | None = None,
    service: PaymentService | None = None,
    redirect_url: str | None = None,
) -> Transaction:
    """Step 3 of a create: the processor's answer becomes the status; a refusal returns the gift card money. An
    approved card the request asked to `keep` becomes the buyer's stored payment method. `service` is the one that
    answered, when the caller holds it (else it is read). A processor waiting for the buyer (its own 3-D Secure)
    makes the transaction wait on this server's page when the payment says where the buyer returns
    (`redirect_url`); else the payment is declined and the processor's payment canceled.

    The answer is recorded under the row's lock. When the status change is the first thing it writes, the change
    itself takes the lock: it is written only if the row is still the caller's copy (one statement where a lock and
    a write were two). A row changed since (a sync, a cancel, a failover) is locked and read again, and the answer
    recorded on what it now says."""
    record = partial(
        _recorded,
        result=result,
        card_amount=card_amount,
        actor=actor,
        keep=keep,
        service=service,
        redirect_url=redirect_url,
    )
    if _moves_first(txn, result, keep):
        try:
            return record(txn, unchanged_since=txn.updated_at)
        except RowChanged:
            return record(txn, unchanged_since=None, read_again=True)  # nothing was written
    return record(txn, unchanged_since=None)


def _moves_first(txn: Transaction, result: ConnectorResult, keep: CardToStore | None) -> bool:
    """Whether recording `result` on the caller's copy writes the status change before anything else: the copy is
    `processing`, the processor decided, and no stored method is kept, marked replaced or given its scheme id."""
    if txn.status != S.PROCESSING or result.outcome is Outcome.BUYER_ACTION:
        return False
    if result.card_replaced and txn.payment_method_id is not None:
        return False
    return not result.approved or (keep is None and txn.payment_method_id is None)


@transaction.atomic
def _recorded(
    txn: Transaction,
    *,
    unchanged_since: datetime | None,
    read_again: bool = False,
    result: ConnectorResult,
    card_amount: int,
    actor: Actor,
    keep: CardToStore | None,
    service: PaymentService | None,
    redirect_url: str | None,
) -> Transaction:
    """`record_authorization` in one database transaction: on a row that is still `unchanged_since`, or (None) under
    its lock, read again when the caller's copy is known to be out of date (`read_again`)."""
    if unchanged_since is None:
        txn = locked_for_update(txn) if read_again else locked_as_held(txn)
    if service is not None and service.pk == txn.payment_service_id:
        txn.payment_service = service
    if txn.status != S.PROCESSING:
        if result is NEVER_RECEIVED or (
            txn.payment_service_transaction_id is not None
            and txn.payment_service_transaction_id == result.processor_reference
        ):
            return txn  # a concurrent sync has recorded this very answer already
        # Canceled while the processor was deciding (or given up by a sync that found no record of it): that
        # stands, and an approval must not hold funds.
        record_event(
            txn, name="authorization_after_cancel", actor=SYSTEM, from_status=txn.status, outcome=result.outcome
        )
        if result.approved or result.outcome is Outcome.BUYER_ACTION:
            release_on_commit(txn, result.processor_reference or "")
        return txn
    if result.outcome is Outcome.BUYER_ACTION:
        if redirect_url and _buyer_can_act(txn):
            txn.payment_service_transaction_id = result.processor_reference
            txn.save(update_fields=["payment_service_transaction_id", "updated_at"])
            return challenge_begin(
                txn, actor=actor, redirect_url=redirect_url, store_card=keep is not None, processor=True
            )
        release_on_commit(txn, result.processor_reference or "")
        result = _buyer_cannot_act(result, has_redirect_url=bool(redirect_url))
    now = timezone.now()
    answer: dict[str, Any] = {
        **answer_fields(result),
        **{name: getattr(result, name) for name in PROCESSOR_DETAILS},
        "payment_service_transaction_id": result.processor_reference,
    }
    if result.card_replaced and txn.payment_method is not None:
        payment_method_mark_replaced(method=txn.payment_method)
    if result.approved and keep is not None and txn.buyer is not None:
        answer["payment_method"] = payment_method_store(
            merchant_account=txn.merchant_account, buyer=txn.buyer, card=keep
        )
    if result.approved:
        _keep_scheme_transaction_id(txn, answer.get("payment_method") or txn.payment_method, result)
    named = _service_named(txn.payment_service) if txn.payment_service is not None else {}
    txn.unchanged_since = unchanged_since  # the status change below is the next save
    if not result.approved:
        to = S.AUTHORIZATION_DECLINED if result.outcome is Outcome.DECLINED else S.AUTHORIZATION_FAILED
        move_to(txn, to, name=to, actor=actor, amount=card_amount, details=named, **answer)
        return_gift_cards(txn, actor=SYSTEM, card_part_refused=True)
    elif txn.intent == PaymentIntent.CAPTURE:
        move_to(
            txn,
            S.CAPTURE_SUCCEEDED,
            name="capture_succeeded",
            actor=actor,
            amount=card_amount,
            authorized_amount=card_amount,
            captured_amount=card_amount,
            authorized_at=now,
            captured_at=now,
            details=named,
            **answer,
        )
        # Captured with its authorization: one capture, the final one (Stripe's charge is its own capture).
        capture_book(
            txn,
            amount=card_amount,
            status=CaptureStatus.SUCCEEDED,
            captured_at=now,
            payment_service_capture_id=result.processor_reference,
            **answer_fields(result),
        )
    else:
        move_to(
            txn,
            S.AUTHORIZATION_SUCCEEDED,
            name="authorization_succeeded",
            actor=actor,
            amount=card_amount,
            authorized_amount=card_amount,
            authorized_at=now,
            details=named,
            **answer,
        )
    return txn
