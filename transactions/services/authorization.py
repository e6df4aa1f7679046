"""Step 3 of a create: the processor's answer to an authorization becomes the transaction's status."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from paymentmethods.services import (
    CardToStore,
    payment_method_mark_replaced,
    payment_method_store,
)
from payments.choices import PaymentIntent
from payments.connectors import (
    ConnectorResult,
    Outcome,
    get_connector,
)
from transactions.models import (
    Transaction,
    TransactionStatus,
)
from transactions.services.state import (
    SYSTEM,
    Actor,
    _answer,
    _event,
    _locked,
    _move,
    _return_gift_cards,
)

S = TransactionStatus
# What an operation the processor never received is recorded as, once no request can still be sending it.
NEVER_RECEIVED = ConnectorResult(
    outcome=Outcome.FAILED,
    error_code="service_error",
    raw_response_description="The processor has no record of this operation: it did not happen.",
)


@transaction.atomic
def _settle_gift_cards_only(txn: Transaction, *, actor: Actor) -> Transaction:
    """Gift cards alone: their debits are the authorization (and the capture, for `intent: capture`)."""
    txn = _locked(txn)
    now = timezone.now()
    if txn.intent == PaymentIntent.CAPTURE:
        _move(txn, S.CAPTURE_SUCCEEDED, name="capture_succeeded", actor=actor, authorized_at=now, captured_at=now)
    else:
        _move(txn, S.AUTHORIZATION_SUCCEEDED, name="authorization_succeeded", actor=actor, authorized_at=now)
    return txn


@transaction.atomic
def _record_authorization(
    txn: Transaction, *, result: ConnectorResult, card_amount: int, actor: Actor, keep: CardToStore | None = None
) -> Transaction:
    """Step 3 of a create: the processor's answer becomes the status; a refusal returns the gift card money. An
    approved card the request asked to `keep` becomes the buyer's stored payment method."""
    txn = _locked(txn)
    if txn.status != S.PROCESSING:
        if result is NEVER_RECEIVED or (
            txn.payment_service_transaction_id is not None
            and txn.payment_service_transaction_id == result.processor_reference
        ):
            return txn  # a concurrent sync has recorded this very answer already
        # Canceled while the processor was deciding (or given up by a sync that found no record of it): that
        # stands, and an approval must not hold funds.
        _event(txn, name="authorization_after_cancel", actor=SYSTEM, from_status=txn.status, outcome=result.outcome)
        if result.approved:
            reference = result.processor_reference or ""
            transaction.on_commit(
                lambda: get_connector().void(processor_reference=reference, reference=f"{txn.pk}:void")
            )
        return txn
    now = timezone.now()
    answer: dict[str, Any] = {
        **_answer(result),
        "cvv_response_code": result.cvv_response_code,
        "payment_service_transaction_id": result.processor_reference,
    }
    if result.card_replaced and txn.payment_method is not None:
        payment_method_mark_replaced(method=txn.payment_method)
    if result.approved and keep is not None and txn.buyer is not None:
        answer["payment_method"] = payment_method_store(
            merchant_account=txn.merchant_account, buyer=txn.buyer, card=keep
        )
    if not result.approved:
        to = S.AUTHORIZATION_DECLINED if result.outcome is Outcome.DECLINED else S.AUTHORIZATION_FAILED
        _move(txn, to, name=to, actor=actor, amount=card_amount, **answer)
        _return_gift_cards(txn, actor=SYSTEM, card_part_refused=True)
    elif txn.intent == PaymentIntent.CAPTURE:
        _move(
            txn,
            S.CAPTURE_SUCCEEDED,
            name="capture_succeeded",
            actor=actor,
            amount=card_amount,
            authorized_amount=card_amount,
            captured_amount=card_amount,
            authorized_at=now,
            captured_at=now,
            **answer,
        )
    else:
        _move(
            txn,
            S.AUTHORIZATION_SUCCEEDED,
            name="authorization_succeeded",
            actor=actor,
            amount=card_amount,
            authorized_amount=card_amount,
            authorized_at=now,
            **answer,
        )
    return txn
