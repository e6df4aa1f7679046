"""The kernel of `transactions/services/`: a transaction's state machine and the steps every operation shares, by
public names (lock, check, move, record an event, ask its connector, build what a connector is asked, check connection
options). Every other module of the package uses these; none imports another's underscore name
(`transactions/tests/test_services_names.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Sum
from django.utils import timezone

from buyers.models import Buyer
from giftcards.models import IssuedGiftCard
from giftcards.services import issued_card_refund
from payments.choices import PaymentIntent
from payments.connectors import (
    AuthorizationRequest,
    CardDetails,
    ConnectorResult,
    PaymentConnector,
    payment_details_of,
)
from payments.errors import Conflict, DomainError
from paymentservices.processors import processor_get
from paymentservices.routing import connector_for
from transactions.details import payment_details_stored
from transactions.models import (
    MAX_CAPTURES_PER_TRANSACTION,
    Capture,
    CaptureStatus,
    GiftCardRedemption,
    RedemptionStatus,
    Transaction,
    TransactionEvent,
    TransactionStatus,
)
from transactions.notifications import transaction_notify

S = TransactionStatus

# Every status change a transaction may make; `move_to` refuses any other, so this table is the state machine.
TRANSITIONS: frozenset[tuple[str, str]] = frozenset(
    {
        (S.PROCESSING, S.AUTHORIZATION_SUCCEEDED),
        (S.PROCESSING, S.CAPTURE_SUCCEEDED),  # intent: capture
        (S.PROCESSING, S.AUTHORIZATION_DECLINED),
        (S.PROCESSING, S.AUTHORIZATION_FAILED),
        (S.PROCESSING, S.AUTHORIZATION_VOIDED),  # cancel
        (S.BUYER_APPROVAL_PENDING, S.AUTHORIZATION_VOIDED),  # cancel
        # A 3-D Secure challenge (transactions.services.challenges): the buyer is asked, then passes (and the
        # processor is asked), fails, or never answers.
        (S.PROCESSING, S.BUYER_APPROVAL_PENDING),
        (S.BUYER_APPROVAL_PENDING, S.PROCESSING),
        (S.BUYER_APPROVAL_PENDING, S.AUTHORIZATION_DECLINED),
        (S.BUYER_APPROVAL_PENDING, S.AUTHORIZATION_FAILED),
        (S.AUTHORIZATION_SUCCEEDED, S.CAPTURE_PENDING),
        (S.CAPTURE_SUCCEEDED, S.CAPTURE_PENDING),  # a later capture, after one with `final: false`
        (S.CAPTURE_PENDING, S.CAPTURE_SUCCEEDED),  # captured; or a later capture refused, the earlier ones stand
        (S.CAPTURE_PENDING, S.AUTHORIZATION_SUCCEEDED),  # the processor refused the (first) capture
        (S.AUTHORIZATION_SUCCEEDED, S.AUTHORIZATION_VOID_PENDING),
        (S.AUTHORIZATION_VOID_PENDING, S.AUTHORIZATION_VOIDED),
        (S.AUTHORIZATION_VOID_PENDING, S.AUTHORIZATION_SUCCEEDED),  # the processor refused the void
        # Captured or canceled at the processor itself, told by its notification (transactions.services.inbound).
        (S.AUTHORIZATION_SUCCEEDED, S.CAPTURE_SUCCEEDED),
        (S.AUTHORIZATION_SUCCEEDED, S.AUTHORIZATION_VOIDED),
        (S.CAPTURE_SUCCEEDED, S.AUTHORIZATION_SUCCEEDED),  # a capture the processor accepted, then failed
    }
)
# The statuses each client action starts from (refunds keep the status: they move money, not state).
ALLOWED_FROM: dict[str, frozenset[str]] = {
    "capture": frozenset({S.AUTHORIZATION_SUCCEEDED}),
    "void": frozenset({S.AUTHORIZATION_SUCCEEDED}),
    "cancel": frozenset({S.PROCESSING, S.BUYER_APPROVAL_PENDING}),
    "refund": frozenset({S.CAPTURE_SUCCEEDED}),
    "increment": frozenset({S.AUTHORIZATION_SUCCEEDED}),
}
_DONE = {
    "capture": "captured",
    "void": "voided",
    "cancel": "canceled",
    "refund": "refunded",
    "increment": "incremented",
}
# The actions an increment under way holds back: each would act on an authorization whose amount is changing.
_AFTER_INCREMENT = frozenset({"capture", "void", "increment"})
_BECAUSE: dict[str, str] = {
    S.PROCESSING: "its authorization is still being processed",
    S.BUYER_APPROVAL_PENDING: "it is waiting for the buyer's approval",
    S.AUTHORIZATION_SUCCEEDED: "it is authorized but not captured",
    S.AUTHORIZATION_DECLINED: "its authorization was declined",
    S.AUTHORIZATION_FAILED: "its authorization failed",
    S.AUTHORIZATION_VOIDED: "it has been voided",
    S.AUTHORIZATION_VOID_PENDING: "a void is in progress",
    S.CAPTURE_SUCCEEDED: "it has already been captured",
    S.CAPTURE_PENDING: "a capture is in progress",
}
_HINT: dict[tuple[str, str], str] = {
    ("void", S.CAPTURE_SUCCEEDED): " Refund it instead.",
    ("cancel", S.AUTHORIZATION_SUCCEEDED): " Void it instead.",
    ("cancel", S.CAPTURE_SUCCEEDED): " Refund it instead.",
}


class InvalidTransition(Conflict):
    """The transaction's status does not allow the action; nothing was changed."""


@dataclass(frozen=True)
class Actor:
    """Who changes a transaction: an API key (by kid), an admin user (by username) or the system."""

    type: str
    id: str = ""
    # Why a person acts (the admin asks for it); recorded on every event the action writes.
    reason: str = ""

    @classmethod
    def api_key(cls, kid: str) -> Actor:
        return cls(TransactionEvent.ActorType.API_KEY, kid)

    @classmethod
    def admin(cls, username: str, *, reason: str = "") -> Actor:
        return cls(TransactionEvent.ActorType.ADMIN, username, reason)


SYSTEM = Actor(TransactionEvent.ActorType.SYSTEM)


@dataclass(frozen=True)
class GiftCardCharge:
    """One gift card of a split tender, already matched by number and PIN (or stored id), and its amount."""

    card: IssuedGiftCard
    amount: int
    gift_card_id: UUID | None = None


@dataclass(frozen=True)
class ActionResult:
    """A capture or void: the transaction afterwards, the processor's answer (None when none was asked) and, for a
    capture of a card part, its record."""

    transaction: Transaction
    result: ConnectorResult | None
    capture: Capture | None = None


def locked_for_update(txn: Transaction) -> Transaction:
    return Transaction.objects.select_for_update().get(pk=txn.pk)


def locked_as_held(txn: Transaction) -> Transaction:
    """Lock `txn`'s row, and keep the caller's copy when the row has not changed since it was read or written:
    every write of a transaction sets `updated_at`, so an equal one means an equal row. Only a row changed meanwhile
    is read again. For a copy the caller has just written (a create's `processing` row), this locks by one column
    where a whole row read and its model cost the create about a tenth of its CPU (docs/performance.md)."""
    version = Transaction.objects.select_for_update().values_list("updated_at", flat=True).get(pk=txn.pk)
    return txn if version == txn.updated_at else Transaction.objects.get(pk=txn.pk)


def increment_in_progress(txn: Transaction) -> bool:
    """An increment of the authorization is being asked of the processor. One pending for longer than any request
    may run is not: its request died (docs/transactions.md, "Incremental authorization")."""
    since = txn.increment_pending_since
    bound = timedelta(seconds=settings.PENDING_TRANSACTION_RECOVERY_SECONDS)
    return since is not None and since > timezone.now() - bound


def require_allowed(action: str, txn: Transaction) -> None:
    if action in _AFTER_INCREMENT and increment_in_progress(txn):
        raise InvalidTransition(
            f"This transaction cannot be {_DONE[action]} now: an increment of its authorization is in progress."
        )
    if txn.status not in ALLOWED_FROM[action]:
        hint = _HINT.get((action, txn.status), "")
        raise InvalidTransition(f"This transaction cannot be {_DONE[action]}: {_BECAUSE[txn.status]}.{hint}")


def record_event(
    txn: Transaction, *, name: str, actor: Actor, from_status: str | None, amount: int | None = None, **details: Any
) -> None:
    TransactionEvent.objects.create(
        transaction=txn,
        name=name,
        actor_type=actor.type,
        actor=actor.id,
        from_status=from_status,
        to_status=txn.status,
        amount=amount,
        details={**details, "reason": actor.reason} if actor.reason else details,
    )


def move_to(
    txn: Transaction,
    to: str,
    *,
    name: str,
    actor: Actor,
    amount: int | None = None,
    details: Mapping[str, Any] | None = None,
    **changes: Any,
) -> None:
    """Apply one allowed status change, with its field changes, to a locked row and record it (with `details`)."""
    from_status = txn.status
    if (from_status, to) not in TRANSITIONS:
        raise InvalidTransition(f"A transaction cannot go from {from_status} to {to}.")
    txn.status = to
    for field, value in changes.items():
        setattr(txn, field, value)
    txn.save(update_fields=["status", *changes, "updated_at"])
    record_event(txn, name=name, actor=actor, from_status=from_status, amount=amount, **(details or {}))
    transaction_notify(txn, event_name=name)


def connector_of(txn: Transaction) -> PaymentConnector:
    """The connector of the payment service that authorized `txn` (or is being asked to): every later operation and
    every lookup goes to the processor that holds the payment."""
    if txn.payment_service is None:
        raise ValueError(f"Transaction {txn.pk} has no payment service: nothing was asked of a processor.")
    return connector_for(txn.payment_service)


def require_feature(txn: Transaction, feature: str, *, asked: str, pointer: str) -> None:
    """Refuse by name (400 at `pointer`) what the processor holding the payment cannot do: its definition's
    `features` say which."""
    service = txn.payment_service
    processor = processor_get(service.definition_id) if service is not None else None
    if processor is not None and processor.features.get(feature):
        return
    holder = f"{processor.display_name} ({processor.id})" if processor is not None else "no processor"
    raise DomainError(f"Not supported: {asked} with {holder}, which holds this payment.", pointer=pointer)


def processor_ready(txn: Transaction) -> None:
    """Open the service's credentials before a capture, void or refund writes anything: credentials that cannot be
    opened (sealed with a removed key) refuse the operation with a 400 instead of leaving it under way, with no one
    able to send it. Asked of every payment with a service, not only of one already authorized: the caller's copy may
    predate its authorization, which is checked under the lock that follows."""
    if txn.payment_service_id is not None:
        connector_of(txn)


def release_on_commit(txn: Transaction, processor_reference: str) -> None:
    """Release what the processor holds for a payment this server ended (best effort, once committed)."""
    connector = connector_of(txn)
    # Robust: the change is committed and stands whatever the processor answers, or if it answers nothing in time
    # (`OutcomeUnknown`); a failure is logged with its traceback instead of turning the committed answer into a 5xx.
    transaction.on_commit(
        lambda: connector.void(processor_reference=processor_reference, reference=f"{txn.pk}:void"), robust=True
    )


class TooManyCaptures(Conflict):
    """The transaction already has as many captures as one may have (`MAX_CAPTURES_PER_TRANSACTION`)."""

    def __init__(self) -> None:
        super().__init__(
            f"This transaction already has {MAX_CAPTURES_PER_TRANSACTION} captures, the most one may have: capture "
            "what is left in one final capture."
        )


def capture_book(txn: Transaction, *, amount: int, status: str, final: bool = True, **fields: Any) -> Capture:
    """The one writer of a capture row (the caller holds the transaction's row lock, so the next sequence is its
    own; the unique sequence stops anyone who does not)."""
    last = txn.captures.aggregate(last=Max("sequence"))["last"] or 0
    if last >= MAX_CAPTURES_PER_TRANSACTION:
        raise TooManyCaptures()
    return Capture.objects.create(
        merchant_account_id=txn.merchant_account_id,
        transaction=txn,
        sequence=last + 1,
        amount=amount,
        currency=txn.currency,
        status=status,
        final=final,
        **fields,
    )


def capture_reference(capture: Capture) -> str:
    """Our reference of a capture at the processor (its idempotency key, what recovery looks up): the first keeps
    the one a transaction's capture always had, later ones add their sequence."""
    first = f"{capture.transaction_id}:capture"
    return first if capture.sequence == 1 else f"{first}:{capture.sequence}"


def capture_pending(txn: Transaction) -> Capture | None:
    """The capture the processor is being asked for, while the transaction is `capture_pending`."""
    return txn.captures.filter(status=CaptureStatus.PENDING).order_by("-sequence").first()


def answer_fields(result: ConnectorResult) -> dict[str, Any]:
    return {
        "error_code": result.error_code,
        "raw_response_code": result.raw_response_code,
        "raw_response_description": result.raw_response_description,
    }


def redemption_reference(redemption: GiftCardRedemption) -> str:
    """The ledger reference of one redemption; its refunds use it too, so the ledger itself caps them."""
    return f"transaction:{redemption.transaction_id}:redemption:{redemption.pk}"


def return_gift_cards(txn: Transaction, *, actor: Actor, card_part_refused: bool) -> None:
    """Credit every redemption's unrefunded money back to its card (void, cancel, refused card part)."""
    redemptions = (
        GiftCardRedemption.objects.select_for_update()
        .select_related("issued_card")
        .filter(transaction=txn, status=RedemptionStatus.SUCCEEDED)
    )
    for redemption in redemptions:
        amount = redemption.refundable_amount
        if amount:
            issued_card_refund(card=redemption.issued_card, amount=amount, reference=redemption_reference(redemption))
        redemption.refunded_amount = redemption.amount
        fields = ["refunded_amount", "updated_at"]
        if card_part_refused:
            redemption.status = RedemptionStatus.FAILED
            redemption.error_code = "operation_canceled"
            redemption.raw_error_message = "Returned to the card: the payment method part did not succeed."
            fields += ["status", "error_code", "raw_error_message"]
        redemption.save(update_fields=fields)
        record_event(
            txn,
            name="gift_card_returned",
            actor=actor,
            from_status=txn.status,
            amount=amount,
            redemption=str(redemption.pk),
        )


def check_connection_options(options: Mapping[str, Any] | None, readable: frozenset[str]) -> None:
    """Options are only accepted for a connection that reads them (`readable`: the sets the connectors of the
    payment's services read): any other set would be silently unused."""
    for key, value in (options or {}).items():
        if value is not None and key not in readable:
            raise DomainError(
                f"Options for '{key}' are not supported: no payment service this payment may go to reads them, "
                "so they would not be used.",
                pointer=f"/connection_options/{key}",
            )


def authorization_request(
    txn: Transaction, *, card: CardDetails, amount: int, billing_postal_code: str | None = None
) -> AuthorizationRequest:
    """What the connector is asked, from what the transaction stored: its card part and everything the client
    declared with it."""
    return AuthorizationRequest(
        **payment_details_of(payment_details_stored(txn)),
        card=card,
        amount=amount,
        currency=txn.currency,
        capture=txn.intent == PaymentIntent.CAPTURE,
        reference=str(txn.pk),
        billing_postal_code=billing_postal_code,
        country=txn.country,
        payment_source=txn.payment_source,
        merchant_initiated=txn.merchant_initiated,
        is_subsequent_payment=txn.is_subsequent_payment,
        connection_options={key: value for key, value in (txn.connection_options or {}).items() if value is not None},
    )


def card_amount_of(txn: Transaction) -> int:
    gift_cards = txn.gift_card_redemptions.aggregate(total=Sum("amount"))["total"] or 0
    return txn.amount - gift_cards


def set_buyer(txn: Transaction, *, buyer: Buyer | None, guest_buyer: dict[str, Any] | None) -> None:
    """Keep a copy of the buyer as it is now; a guest buyer exists only on the transaction."""
    if buyer is not None:
        txn.buyer = buyer
        txn.buyer_external_identifier = buyer.external_identifier
        txn.buyer_details = {
            "id": str(buyer.pk),
            "display_name": buyer.display_name,
            "external_identifier": buyer.external_identifier,
            "billing_details": buyer.billing_details,
            "account_number": buyer.account_number,
        }
    elif guest_buyer:
        details = dict(guest_buyer)
        txn.shipping_details = details.pop("shipping_details", None)
        txn.buyer_external_identifier = details.get("external_identifier")
        txn.buyer_details = {"id": None, **details}
    email = ((txn.buyer_details or {}).get("billing_details") or {}).get("email_address")
    txn.buyer_email_address = email.lower() if email else None
