"""Refunds: of the payment method (through the processor) and of each gift card (on its ledger)."""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID, uuid5

from django.db import transaction
from django.db.models import QuerySet

from giftcards.services import issued_card_refund
from payments.connectors import (
    ConnectorResult,
    Outcome,
    OutcomeUnknown,
)
from payments.connectors.base import RepeatsWrites
from payments.errors import Conflict, DomainError
from transactions.disputes import transaction_held, transaction_open_disputes, transaction_taken_back
from transactions.models import (
    MAX_REFUNDS_PER_TRANSACTION,
    GiftCardRedemption,
    RedemptionStatus,
    Refund,
    RefundStatus,
    RefundTargetType,
    Transaction,
)
from transactions.notifications import refund_notify
from transactions.services.state import (
    Actor,
    answer_fields,
    connector_of,
    locked_for_update,
    processor_ready,
    record_event,
    redemption_reference,
    require_allowed,
)

logger = logging.getLogger(__name__)


def _refund_amount(requested: int | None, *, refundable: int, what: str) -> int:
    if refundable == 0:
        raise Conflict(f"Nothing is left to refund on the {what}.")
    if requested is None:
        return refundable
    if requested > refundable:
        raise DomainError(
            f"The refund amount is more than what is left to refund on the {what} ({refundable}).", pointer="/amount"
        )
    return requested


def _reserve_card_refund(txn: Transaction, *, amount: int | None, actor: Actor, **fields: Any) -> Refund:
    """Count the amount as refunded at once (row locked), so concurrent refunds cannot pass the captured amount."""
    if not txn.pays_with_method:
        raise DomainError(
            "This transaction has no payment method to refund; target a gift card redemption.", pointer="/target_type"
        )
    amount = _held_back(txn, requested=amount, refundable=card_refundable(txn))
    return card_refund_book(txn, amount=amount, actor=actor, event="refund_requested", **fields)


def card_refundable(txn: Transaction) -> int:
    """What is left to refund of the card: captured, less refunds, less what disputes the bank decided for the buyer
    took back (a refund of that would pay the buyer twice). Refused by name when disputes are why nothing is left."""
    left = txn.captured_amount - txn.refunded_amount
    taken_back = transaction_taken_back(txn)
    if taken_back and left > 0 and left <= taken_back:
        raise TakenBackByDispute(taken_back=taken_back)
    return max(left - taken_back, 0)


def _held_back(txn: Transaction, *, requested: int | None, refundable: int) -> int:
    """The amount of a card refund once open disputes are counted: what they hold may not be refunded until the bank
    decides them (docs/disputes.md). A refund that would take any of it (everything left, when they hold some) is
    refused naming them: the request is not wrong, the payment's state is."""
    amount = _refund_amount(requested, refundable=refundable, what="payment method")
    held = transaction_held(txn)
    if held and (requested is None or amount > refundable - held):
        raise HeldByDispute(txn, held=held, refundable=max(refundable - held, 0))
    return amount


def card_refund_book(
    txn: Transaction, *, amount: int, actor: Actor, event: str, details: dict[str, Any] | None = None, **fields: Any
) -> Refund:
    """The one booking of a refund of the card (the caller holds the transaction's row lock and checked `amount`):
    counted as refunded, a refund row, the event named `event` and our own webhook. Requested here, or made at the
    processor (its notification: `status` succeeded)."""
    txn.refunded_amount += amount
    txn.save(update_fields=["refunded_amount", "updated_at"])
    refund = Refund.objects.create(
        merchant_account_id=txn.merchant_account_id,
        transaction=txn,
        target_type=RefundTargetType.PAYMENT_METHOD,
        amount=amount,
        currency=txn.currency,
        **fields,
    )
    record_event(
        txn, name=event, actor=actor, from_status=txn.status, amount=amount, refund=str(refund.pk), **(details or {})
    )
    refund_notify(refund)
    return refund


def _refund_gift_card(
    txn: Transaction, *, redemption: GiftCardRedemption, amount: int | None, actor: Actor, **fields: Any
) -> Refund:
    """Credit the card's ledger (row locked); no processor is involved, so the refund succeeds here."""
    amount = _refund_amount(amount, refundable=redemption.refundable_amount, what="gift card")
    refund = Refund.objects.create(
        merchant_account_id=txn.merchant_account_id,
        transaction=txn,
        target_type=RefundTargetType.GIFT_CARD_REDEMPTION,
        redemption=redemption,
        amount=amount,
        currency=txn.currency,
        status=RefundStatus.SUCCEEDED,
        **fields,
    )
    issued_card_refund(card=redemption.issued_card, amount=amount, reference=redemption_reference(redemption))
    redemption.refunded_amount += amount
    redemption.save(update_fields=["refunded_amount", "updated_at"])
    txn.save(update_fields=["updated_at"])
    record_event(
        txn,
        name="refund_succeeded",
        actor=actor,
        from_status=txn.status,
        amount=amount,
        refund=str(refund.pk),
        redemption=str(redemption.pk),
    )
    refund_notify(refund)
    return refund


def _redemptions_for_update(txn: Transaction) -> QuerySet[GiftCardRedemption]:
    return (
        GiftCardRedemption.objects.select_for_update()
        .select_related("issued_card")
        .filter(transaction=txn, status=RedemptionStatus.SUCCEEDED)
        .order_by("created_at", "id")
    )


class TakenBackByDispute(Conflict):
    """The refund asks for money a lost (or accepted) dispute already took back: the buyer has it from the bank."""

    def __init__(self, *, taken_back: int) -> None:
        super().__init__(
            f"Nothing is left to refund: disputes the bank decided for the buyer took back {taken_back} of this "
            "payment, and the buyer has that money already."
        )


class HeldByDispute(Conflict):
    """The refund asks for money an open dispute holds: if the bank decides for the buyer, a refund now pays twice."""

    def __init__(self, txn: Transaction, *, held: int, refundable: int) -> None:
        disputes = transaction_open_disputes(txn)
        ids = ", ".join(dispute.processor_dispute_id for dispute in disputes)
        named = f"Dispute {ids} is open and holds" if len(disputes) == 1 else f"Disputes {ids} are open and hold"
        rest = "nothing else is left to refund." if not refundable else f"refund at most {refundable}, with an amount."
        super().__init__(
            f"{named} {held} of this payment until the bank decides (a refund of it could pay the buyer twice): {rest}"
        )


class TooManyRefunds(Conflict):
    """The transaction already has as many refunds as one may have (`MAX_REFUNDS_PER_TRANSACTION`)."""

    def __init__(self) -> None:
        super().__init__(
            f"This transaction already has {MAX_REFUNDS_PER_TRANSACTION} refunds, the most one may have: refund what "
            "is left in one refund (leave `amount` out) or with refunds/all."
        )


def _require_refund_room(txn: Transaction, *, adding: int) -> None:
    """Called under the transaction's row lock, so concurrent refunds cannot pass the limit together."""
    if Refund.objects.filter(transaction=txn).count() + adding > MAX_REFUNDS_PER_TRANSACTION:
        raise TooManyRefunds()


@transaction.atomic
def _begin_refund(
    txn: Transaction, *, actor: Actor, amount: int | None, target_type: str, target_id: UUID | None, **fields: Any
) -> Refund:
    txn = locked_for_update(txn)
    require_allowed("refund", txn)
    _require_refund_room(txn, adding=1)
    if target_type == RefundTargetType.PAYMENT_METHOD:
        if target_id is not None:
            raise DomainError("target_id is only used with target_type gift-card-redemption.", pointer="/target_id")
        return _reserve_card_refund(txn, amount=amount, actor=actor, **fields)
    redemption = _redemptions_for_update(txn).filter(pk=target_id).first() if target_id is not None else None
    if redemption is None:
        raise DomainError("target_id must name a gift card redemption of this transaction.", pointer="/target_id")
    return _refund_gift_card(txn, redemption=redemption, amount=amount, actor=actor, **fields)


def _send_refund(refund: Refund, *, actor: Actor) -> Refund:
    """Steps 2 and 3 of a card refund: ask the processor, then record its answer."""
    try:
        result = connector_of(refund.transaction).refund(
            processor_reference=refund.transaction.payment_service_transaction_id or "",
            amount=refund.amount,
            currency=refund.currency,
            reference=str(refund.pk),
        )
    except OutcomeUnknown:
        return _refund_unanswered(refund, actor=actor)
    return _finish_refund(refund, result=result, actor=actor)


@transaction.atomic
def _refund_unanswered(refund: Refund, *, actor: Actor) -> Refund:
    """The processor gave no answer in time and cannot be asked now what it did: the refund may have happened. It
    stays `processing` (upstream's status while the processor decides), its amount counted as refunded (a 5xx would
    tell the client the request may not have happened); sync and the pending sweep record the processor's word on
    it (`refunds_sync`)."""
    logger.warning("Refund %s: no answer from the processor; recovery settles it", refund.pk)
    txn = locked_for_update(refund.transaction)
    record_event(
        txn, name="refund_unanswered", actor=actor, from_status=txn.status, amount=refund.amount, refund=str(refund.pk)
    )
    refund.transaction = txn
    return refund


def refunds_sync(*, txn: Transaction, actor: Actor) -> None:
    """Ask the processor what became of each card refund of `txn` still `processing` (its request died, or the
    processor did not answer it) and record its answer, as the request would have. Only the processor's word settles
    one: a refund it has no record of stays `processing`, counted as refunded (the safe side), for the operator; some
    processors cannot be asked by our reference at all, and one that answers a write sent again with our reference
    with what it did the first time (PayPal) is sent it again. Raises `OutcomeUnknown` when the processor cannot be
    asked."""
    pending = Refund.objects.filter(
        transaction=txn, target_type=RefundTargetType.PAYMENT_METHOD, status=RefundStatus.PROCESSING
    ).order_by("created_at", "id")
    for refund in pending:
        found = connector_of(txn).lookup(reference=str(refund.pk)) or _refund_again(refund)
        if found is not None:
            _finish_refund(refund, result=found, actor=actor)


def _refund_again(refund: Refund) -> ConnectorResult | None:
    """A refund whose answer was lost, sent again under its own reference to a processor that answers a repeat with
    the refund it made the first time, never a second one: its answer, or None when it gave none again."""
    connector = connector_of(refund.transaction)
    if not (isinstance(connector, RepeatsWrites) and connector.repeats_writes):
        return None
    try:
        result = connector.refund(
            processor_reference=refund.transaction.payment_service_transaction_id or "",
            amount=refund.amount,
            currency=refund.currency,
            reference=str(refund.pk),
        )
    except OutcomeUnknown:
        return None
    return None if result.outcome is Outcome.FAILED else result


@transaction.atomic
def _finish_refund(refund: Refund, *, result: ConnectorResult, actor: Actor) -> Refund:
    """A refused refund gives its reserved amount back to what may still be refunded."""
    txn = locked_for_update(refund.transaction)
    refund = Refund.objects.select_for_update().get(pk=refund.pk)
    if refund.status != RefundStatus.PROCESSING:
        refund.transaction = txn
        return refund  # a sync recorded the processor's answer first
    refund.payment_service_refund_id = result.processor_reference
    for name, value in answer_fields(result).items():
        setattr(refund, name, value)
    if result.approved:
        refund.status = RefundStatus.SUCCEEDED
    else:
        refund.status = RefundStatus.DECLINED if result.outcome is Outcome.DECLINED else RefundStatus.FAILED
        txn.refunded_amount -= refund.amount
        txn.save(update_fields=["refunded_amount", "updated_at"])
    refund.save()
    record_event(
        txn,
        name=f"refund_{refund.status}",
        actor=actor,
        from_status=txn.status,
        amount=refund.amount,
        refund=str(refund.pk),
    )
    refund_notify(refund)
    refund.transaction = txn
    return refund


def _gift_card_refund_id(id: UUID, redemption: UUID) -> UUID:
    """The id of a gift card's refund in a refund of everything named `id`: the same on every attempt of the request,
    so a resumed one finds it."""
    return uuid5(id, str(redemption))


def _refunds_resumed(txn: Transaction, *, ids: list[UUID], actor: Actor) -> list[Refund]:
    """The refunds a request whose process died made under `ids` (none: it died before making any, and they are made
    now), each card refund still `processing` asked about at the processor by its own reference and its word recorded.
    Never sent again: a processor that has no record of one, or cannot be asked now, leaves it `processing`, counted
    as refunded, for sync and the pending sweep (a second send under a processor that cannot be asked by our
    reference could pay the buyer twice)."""
    made = list(Refund.objects.filter(transaction=txn, pk__in=ids).order_by("created_at", "id"))
    resumed = []
    for refund in made:
        if refund.status == RefundStatus.PROCESSING and refund.target_type == RefundTargetType.PAYMENT_METHOD:
            try:
                found = connector_of(txn).lookup(reference=str(refund.pk))
            except OutcomeUnknown:
                logger.warning("Refund %s: its processor cannot be asked now; the pending sweep settles it", refund.pk)
                found = None
            if found is not None:
                refund = _finish_refund(refund, result=found, actor=actor)
        resumed.append(refund)
    return resumed


def refund_create(
    *,
    txn: Transaction,
    actor: Actor,
    amount: int | None = None,
    target_type: str = RefundTargetType.PAYMENT_METHOD,
    target_id: UUID | None = None,
    reason: str | None = None,
    external_identifier: str | None = None,
    id: UUID | None = None,
    resumed: bool = False,
) -> Refund:
    """Refund `amount` (default: all that is left) of the payment method or of one gift card; never more.

    `id` names the refund (the one reserved on the request's Idempotency-Key); `resumed`: a request with the same key
    died, and the refund it made under `id` is answered as the processor now says, never sent a second time."""
    if resumed and id is not None:
        made = _refunds_resumed(txn, ids=[id], actor=actor)
        if made:
            return made[0]
    if target_type == RefundTargetType.PAYMENT_METHOD:
        processor_ready(txn)
    refund = _begin_refund(
        txn,
        actor=actor,
        amount=amount,
        target_type=target_type,
        target_id=target_id,
        reason=reason,
        external_identifier=external_identifier,
        **({"id": id} if id is not None else {}),
    )
    if refund.status != RefundStatus.PROCESSING:
        return refund
    return _send_refund(refund, actor=actor)


@transaction.atomic
def _begin_refund_all(txn: Transaction, *, actor: Actor, id: UUID | None, **fields: Any) -> list[Refund]:
    txn = locked_for_update(txn)
    require_allowed("refund", txn)
    refunds = []
    # The card's part is what disputes left of it; the gift cards' parts are refunded whatever the bank took back.
    taken_back = transaction_taken_back(txn)
    if txn.pays_with_method and txn.captured_amount - txn.refunded_amount > taken_back:
        card_id = {"id": id} if id is not None else {}
        refunds.append(_reserve_card_refund(txn, amount=None, actor=actor, **card_id, **fields))
    for redemption in _redemptions_for_update(txn):
        if redemption.refundable_amount:
            named = {"id": _gift_card_refund_id(id, redemption.pk)} if id is not None else {}
            refunds.append(_refund_gift_card(txn, redemption=redemption, amount=None, actor=actor, **named, **fields))
    if not refunds and taken_back and txn.captured_amount > txn.refunded_amount:
        raise TakenBackByDispute(taken_back=taken_back)
    if not refunds:
        raise Conflict("Nothing is left to refund on this transaction.")
    _require_refund_room(txn, adding=0)  # the refunds above are rows already: counted, and undone if too many
    return refunds


def refund_all(
    *,
    txn: Transaction,
    actor: Actor,
    reason: str | None = None,
    external_identifier: str | None = None,
    id: UUID | None = None,
    resumed: bool = False,
) -> list[Refund]:
    """Refund everything left on every instrument: the payment method and each gift card.

    `id` names the card's refund, and each gift card's is named from it (`_gift_card_refund_id`); `resumed`: the
    refunds a request with the same key made are answered as refund_create answers its one."""
    if resumed and id is not None:
        redemptions = GiftCardRedemption.objects.filter(transaction=txn).values_list("pk", flat=True)
        made = _refunds_resumed(txn, ids=[id, *(_gift_card_refund_id(id, pk) for pk in redemptions)], actor=actor)
        if made:
            return made
    processor_ready(txn)
    refunds = _begin_refund_all(txn, actor=actor, reason=reason, external_identifier=external_identifier, id=id)
    return [
        _send_refund(refund, actor=actor) if refund.status == RefundStatus.PROCESSING else refund for refund in refunds
    ]
