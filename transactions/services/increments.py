"""Incremental authorization: raise an uncaptured authorization's amount where the processor holding it can. Claim,
call, record, as captures do: the claim marks the increment under way (captures and voids wait), the processor is
asked without a lock, and its answer is recorded under the lock again."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils import timezone

from payments.connectors import ConnectorResult, IncrementsAuthorization, Outcome
from payments.errors import DomainError
from payments.validators import MAX_AMOUNT
from transactions.models import Transaction
from transactions.notifications import transaction_notify
from transactions.services.state import (
    ActionResult,
    Actor,
    connector_of,
    locked_for_update,
    processor_ready,
    record_event,
    require_allowed,
    require_feature,
)

# Asked of a connector that turns out not to increment (a processor's features said it could): nothing was sent.
_NOT_SENT = ConnectorResult(outcome=Outcome.FAILED, error_code="service_error")


@transaction.atomic
def _begin_increment(txn: Transaction, *, amount: int, actor: Actor) -> tuple[Transaction, str]:
    txn = locked_for_update(txn)
    require_allowed("increment", txn)
    require_feature(txn, "incremental_authorization", asked="incremental authorization", pointer="/")
    if txn.amount + amount > MAX_AMOUNT:
        raise DomainError(
            f"The increment would take the transaction's amount past the largest amount ({MAX_AMOUNT}).",
            pointer="/amount",
        )
    reference = f"{txn.pk}:increment:{uuid.uuid4().hex}"
    txn.increment_pending_since = timezone.now()
    txn.save(update_fields=["increment_pending_since", "updated_at"])
    record_event(
        txn,
        name="authorization_increment_requested",
        actor=actor,
        from_status=txn.status,
        amount=amount,
        reference=reference,
    )
    return txn, reference


def transaction_increment_authorization(*, txn: Transaction, actor: Actor, amount: int) -> ActionResult:
    """Raise the authorization (and the transaction's amount) by `amount` if the processor agrees; a refusal changes
    no amount."""
    processor_ready(txn)
    txn, reference = _begin_increment(txn, amount=amount, actor=actor)
    connector = connector_of(txn)
    result = _NOT_SENT
    if isinstance(connector, IncrementsAuthorization):
        result = connector.increment_authorization(
            processor_reference=txn.payment_service_transaction_id or "",
            amount=amount,
            total=txn.authorized_amount + amount,
            currency=txn.currency,
            reference=reference,
        )
    return ActionResult(finish_increment(txn, amount=amount, result=result, actor=actor), result)


@transaction.atomic
def finish_increment(txn: Transaction, *, amount: int, result: ConnectorResult, actor: Actor) -> Transaction:
    """Record the processor's answer to the increment under way, once (a sync may have recorded it first)."""
    txn = locked_for_update(txn)
    if txn.increment_pending_since is None:
        return txn
    txn.increment_pending_since = None
    changed = ["increment_pending_since", "updated_at"]
    if result.approved:
        txn.amount += amount
        txn.authorized_amount += amount
        changed += ["amount", "authorized_amount"]
    txn.save(update_fields=changed)
    name = "authorization_incremented" if result.approved else f"authorization_increment_{result.outcome}"
    record_event(
        txn,
        name=name,
        actor=actor,
        from_status=txn.status,
        amount=amount,
        raw_response_code=result.raw_response_code,
    )
    transaction_notify(txn, event_name=name)
    return txn


def increment_sync(*, txn: Transaction, actor: Actor, abandoned: bool) -> Transaction:
    """What became of an increment whose request died: the processor's record of it (by its reference) is recorded
    as the request would have; none, once `abandoned`, means it never happened. A processor that cannot be asked by
    our reference (Adyen) leaves it to the pending mark's age (docs/transactions.md)."""
    started = txn.events.filter(name="authorization_increment_requested").order_by("-created_at", "-id").first()
    if started is None or started.amount is None:
        return txn
    found = connector_of(txn).lookup(reference=str(started.details.get("reference", "")))
    if found is None and not abandoned:
        return txn
    return finish_increment(txn, amount=started.amount, result=found or _NOT_SENT, actor=actor)
