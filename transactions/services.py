"""Every change of a transaction: the one place where its state machine and money rules live.

Calls to the processor happen outside database transactions, so a slow processor never holds row locks.
Each operation therefore runs in three steps: (1) under the transaction's row lock, check the transition
and claim it by moving to a pending status (a new transaction starts as `processing`); (2) ask the
connector; (3) under the lock again, record the answer. A concurrent request finds the pending status and
is refused, so an operation never runs twice. Gift card money moves in step 1 (ledger debits) and comes
back in step 3 if the card part is refused; the ledger is in this database, so it commits or rolls back
with the transaction row.

The transition table is `TRANSITIONS`; docs/transactions.md draws it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from dataclasses import fields as dataclass_fields
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import QuerySet, Sum
from django.utils import timezone

from buyers.access import UNRESTRICTED, BuyerAccess
from buyers.models import Buyer
from buyers.selectors import buyer_named, shipping_details_get
from buyers.services import SHIPPING_DETAILS_FIELDS
from giftcards.errors import GiftCardError
from giftcards.models import IssuedGiftCard
from giftcards.selectors import issued_card_for_payment
from giftcards.services import issued_card_redeem, issued_card_refund
from paymentmethods.services import (
    CardToStore,
    payment_method_mark_replaced,
    payment_method_record_use,
    payment_method_store,
)
from payments.choices import PaymentIntent, PaymentSource
from payments.connectors import (
    AuthorizationRequest,
    BrowserInfo,
    CardDetails,
    ConnectorResult,
    Outcome,
    PurchaseDetails,
    StatementDescriptor,
    ThreeDSecureData,
    get_connector,
)
from payments.errors import Conflict, DomainError, NotFound
from payments.models import MerchantAccount, VaultedCard
from payments.vault.services import vaulted_card_reveal, vaulted_card_store
from transactions.models import (
    MAX_REFUNDS_PER_TRANSACTION,
    PENDING_STATUSES,
    GiftCardRedemption,
    RedemptionStatus,
    Refund,
    RefundStatus,
    RefundTargetType,
    Transaction,
    TransactionEvent,
    TransactionStatus,
)
from transactions.notifications import refund_notify, transaction_notify
from transactions.requests import (
    MAX_GIFT_CARDS,
    GiftCardRequest,
    PaymentCard,
    StoredPaymentMethodRequest,
    TransactionRequest,
)
from transactions.selectors import transactions_pending

logger = logging.getLogger("transactions.recovery")
S = TransactionStatus
# A card sent inline is kept (sealed, without its security code) while its authorization can be captured.
CARD_RETENTION = timedelta(days=7)
# Purchase (level 2/3) data: one column per field of the connector's PurchaseDetails.
PURCHASE_FIELDS = tuple(field.name for field in dataclass_fields(PurchaseDetails))

# Every status change a transaction may make; `_move` refuses any other, so this table is the state machine.
TRANSITIONS: frozenset[tuple[str, str]] = frozenset(
    {
        (S.PROCESSING, S.AUTHORIZATION_SUCCEEDED),
        (S.PROCESSING, S.CAPTURE_SUCCEEDED),  # intent: capture
        (S.PROCESSING, S.AUTHORIZATION_DECLINED),
        (S.PROCESSING, S.AUTHORIZATION_FAILED),
        (S.PROCESSING, S.AUTHORIZATION_VOIDED),  # cancel
        (S.BUYER_APPROVAL_PENDING, S.AUTHORIZATION_VOIDED),  # cancel
        (S.AUTHORIZATION_SUCCEEDED, S.CAPTURE_PENDING),
        (S.CAPTURE_PENDING, S.CAPTURE_SUCCEEDED),
        (S.CAPTURE_PENDING, S.AUTHORIZATION_SUCCEEDED),  # the processor refused the capture
        (S.AUTHORIZATION_SUCCEEDED, S.AUTHORIZATION_VOID_PENDING),
        (S.AUTHORIZATION_VOID_PENDING, S.AUTHORIZATION_VOIDED),
        (S.AUTHORIZATION_VOID_PENDING, S.AUTHORIZATION_SUCCEEDED),  # the processor refused the void
    }
)
# The statuses each client action starts from (refunds keep the status: they move money, not state).
ALLOWED_FROM: dict[str, frozenset[str]] = {
    "capture": frozenset({S.AUTHORIZATION_SUCCEEDED}),
    "void": frozenset({S.AUTHORIZATION_SUCCEEDED}),
    "cancel": frozenset({S.PROCESSING, S.BUYER_APPROVAL_PENDING}),
    "refund": frozenset({S.CAPTURE_SUCCEEDED}),
}
_DONE = {"capture": "captured", "void": "voided", "cancel": "canceled", "refund": "refunded"}
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
    """A capture or void: the transaction afterwards and the processor's answer (None when none was asked)."""

    transaction: Transaction
    result: ConnectorResult | None


# --- shared steps ---------------------------------------------------------------------------------------


def _locked(txn: Transaction) -> Transaction:
    return Transaction.objects.select_for_update().get(pk=txn.pk)


def _require(action: str, txn: Transaction) -> None:
    if txn.status not in ALLOWED_FROM[action]:
        hint = _HINT.get((action, txn.status), "")
        raise InvalidTransition(f"This transaction cannot be {_DONE[action]}: {_BECAUSE[txn.status]}.{hint}")


def _event(
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


def _move(txn: Transaction, to: str, *, name: str, actor: Actor, amount: int | None = None, **changes: Any) -> None:
    """Apply one allowed status change, with its field changes, to a locked row and record it."""
    from_status = txn.status
    if (from_status, to) not in TRANSITIONS:
        raise InvalidTransition(f"A transaction cannot go from {from_status} to {to}.")
    txn.status = to
    for field, value in changes.items():
        setattr(txn, field, value)
    txn.save(update_fields=["status", *changes, "updated_at"])
    _event(txn, name=name, actor=actor, from_status=from_status, amount=amount)
    transaction_notify(txn, event_name=name)


def _answer(result: ConnectorResult) -> dict[str, Any]:
    return {
        "error_code": result.error_code,
        "raw_response_code": result.raw_response_code,
        "raw_response_description": result.raw_response_description,
    }


def _redemption_reference(redemption: GiftCardRedemption) -> str:
    """The ledger reference of one redemption; its refunds use it too, so the ledger itself caps them."""
    return f"transaction:{redemption.transaction_id}:redemption:{redemption.pk}"


def _return_gift_cards(txn: Transaction, *, actor: Actor, card_part_refused: bool) -> None:
    """Credit every redemption's unrefunded money back to its card (void, cancel, refused card part)."""
    redemptions = (
        GiftCardRedemption.objects.select_for_update()
        .select_related("issued_card")
        .filter(transaction=txn, status=RedemptionStatus.SUCCEEDED)
    )
    for redemption in redemptions:
        amount = redemption.refundable_amount
        if amount:
            issued_card_refund(card=redemption.issued_card, amount=amount, reference=_redemption_reference(redemption))
        redemption.refunded_amount = redemption.amount
        fields = ["refunded_amount", "updated_at"]
        if card_part_refused:
            redemption.status = RedemptionStatus.FAILED
            redemption.error_code = "operation_canceled"
            redemption.raw_error_message = "Returned to the card: the payment method part did not succeed."
            fields += ["status", "error_code", "raw_error_message"]
        redemption.save(update_fields=fields)
        _event(
            txn,
            name="gift_card_returned",
            actor=actor,
            from_status=txn.status,
            amount=amount,
            redemption=str(redemption.pk),
        )


# --- create ---------------------------------------------------------------------------------------------


def _check_tender(*, amount: int, has_card: bool, gift_cards: Sequence[GiftCardCharge]) -> None:
    """The gift cards and the payment method together pay exactly `amount`, each gift card once."""
    if len(gift_cards) > MAX_GIFT_CARDS:
        raise DomainError(f"At most {MAX_GIFT_CARDS} gift cards can pay one transaction.", pointer="/gift_cards")
    seen: set[UUID] = set()
    for index, charge in enumerate(gift_cards):
        if charge.card.pk in seen:
            raise DomainError("This gift card is already listed.", pointer=f"/gift_cards/{index}")
        seen.add(charge.card.pk)
    covered = sum(charge.amount for charge in gift_cards)
    if covered > amount:
        raise DomainError("The gift card amounts add up to more than the transaction amount.", pointer="/gift_cards")
    if not has_card and covered != amount:
        raise DomainError(
            "A payment method is required unless the gift cards cover the whole amount.", pointer="/payment_method"
        )
    if has_card and gift_cards and covered == amount:
        raise DomainError(
            "The gift cards cover the whole amount: leave out the payment method.", pointer="/payment_method"
        )


def _check_connection_options(options: Mapping[str, Any] | None) -> None:
    """Options are only accepted for a connection that reads them: any other set would be silently unused."""
    readable = get_connector().connection_options_keys
    for key, value in (options or {}).items():
        if value is not None and key not in readable:
            raise DomainError(
                f"Options for '{key}' are not supported: no such connection is configured, so they would not be used.",
                pointer=f"/connection_options/{key}",
            )


def _three_d_secure_summary(data: ThreeDSecureData | None) -> dict[str, Any] | None:
    """Upstream's summary of the 3-D Secure result the client sent (this server runs no authentication itself);
    `response_data` keeps the result whole, so the connector can be given it again."""
    if data is None:
        return None
    return {
        "version": data.version,
        "status": str(data.status),
        "method": "challenge" if data.challenged else "frictionless",
        "response_data": {name: value for name, value in asdict(data).items() if value is not None},
        "error_data": None,
        "amount": None,
    }


def _authorization(
    txn: Transaction, *, card: CardDetails, amount: int, billing_postal_code: str | None = None
) -> AuthorizationRequest:
    """What the connector is asked, from what the transaction stored: its card part and everything the client
    declared with it."""
    three_d_secure = (txn.three_d_secure or {}).get("response_data")
    return AuthorizationRequest(
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
        previous_scheme_transaction_id=txn.previous_scheme_transaction_id,
        previous_transaction_link_id=txn.previous_transaction_link_id,
        account_funding_transaction=txn.account_funding_transaction,
        allow_partial_authorization=txn.allow_partial_authorization,
        installment_count=txn.installment_count,
        three_d_secure=ThreeDSecureData(**three_d_secure) if three_d_secure else None,
        browser_info=BrowserInfo(**txn.browser_info) if txn.browser_info else None,
        statement_descriptor=StatementDescriptor(**txn.statement_descriptor) if txn.statement_descriptor else None,
        description=txn.description,
        purchase=PurchaseDetails(**{name: getattr(txn, name) for name in PURCHASE_FIELDS}),
        cart_items=txn.cart_items,
        airline=txn.airline,
        recipient=txn.recipient,
        connection_options={key: value for key, value in (txn.connection_options or {}).items() if value is not None},
    )


def _set_buyer(txn: Transaction, *, buyer: Buyer | None, guest_buyer: dict[str, Any] | None) -> None:
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


def _set_card(txn: Transaction, vaulted: VaultedCard) -> None:
    txn.vaulted_card = vaulted
    txn.method = "card"
    txn.card_scheme = vaulted.scheme
    txn.card_bin = vaulted.bin
    txn.card_last4 = vaulted.last4
    txn.card_expiration_date = vaulted.expiration_date
    txn.card_fingerprint = vaulted.fingerprint


def _redeem(txn: Transaction, gift_cards: Sequence[GiftCardCharge], actor: Actor) -> None:
    """Debit every gift card; a refusal rolls back the whole step, so nothing has moved."""
    for index, charge in enumerate(gift_cards):
        card = charge.card
        redemption = GiftCardRedemption.objects.create(
            transaction=txn,
            issued_card=card,
            gift_card_id=charge.gift_card_id,
            bin=card.bin,
            sub_bin=card.sub_bin,
            last4=card.last4,
            amount=charge.amount,
        )
        try:
            issued_card_redeem(
                card=card, amount=charge.amount, reference=_redemption_reference(redemption), currency=txn.currency
            )
        except GiftCardError as exc:
            raise type(exc)(exc.message, pointer=f"/gift_cards/{index}") from exc
        redemption.status = RedemptionStatus.SUCCEEDED
        redemption.save(update_fields=["status", "updated_at"])
        _event(
            txn,
            name="gift_card_redeemed",
            actor=actor,
            from_status=txn.status,
            amount=charge.amount,
            redemption=str(redemption.pk),
        )


@transaction.atomic
def _open(
    txn: Transaction, *, actor: Actor, card: PaymentCard | None, gift_cards: Sequence[GiftCardCharge]
) -> CardDetails | None:
    """Step 1 of a create: the `processing` row, its sealed card and every gift card debit, or none of them.

    Returns the clear card for the one authorization; a vaulted card's security code is deleted here.
    """
    details, vaulted = (card.details, card.vaulted) if card is not None else (None, None)
    if details is not None:
        vaulted = vaulted_card_store(
            merchant_account=txn.merchant_account,
            number=details.number,
            expiration_month=details.expiration_month,
            expiration_year=details.expiration_year,
            expires_at=timezone.now() + CARD_RETENTION,
        )
    elif vaulted is not None:
        details = vaulted_card_reveal(card=vaulted, consume_security_code=True)
        if card is not None and card.security_code is not None:  # typed by the buyer for this payment
            details = replace(details, security_code=card.security_code)
    if vaulted is not None:
        _set_card(txn, vaulted)
    elif gift_cards:
        txn.method = "gift-card"
    txn.payment_method = card.payment_method if card is not None else None
    txn.save(force_insert=True)
    if txn.payment_method is not None:
        payment_method_record_use(method=txn.payment_method, merchant_initiated=txn.merchant_initiated)
    _event(txn, name="transaction_created", actor=actor, from_status=None, amount=txn.amount)
    _redeem(txn, gift_cards, actor)
    return details


def transaction_create(
    *,
    merchant_account: MerchantAccount,
    actor: Actor,
    request: TransactionRequest,
    id: UUID | None = None,
    resumed: bool = True,
    access: BuyerAccess = UNRESTRICTED,
) -> Transaction:
    """Debit the gift cards, then authorize (or capture) the rest on the payment method. Everything the request
    names is resolved and checked before anything is written; a refused gift card refuses the request before
    anything moves; a refused card part gives every gift card its money back.

    `id`, when given, was reserved for this request before it ran (its Idempotency-Key). A transaction that
    already has it was made by an earlier attempt of the same request whose process died: that one is synced
    and returned, never a second one made. `resumed=False` says no earlier attempt can have run (the id was
    reserved by this very request), so nothing is looked up; a race is still caught by the primary key.

    `access` says which buyer the caller may touch (`buyers.access`): the buyer, stored payment method, stored gift
    cards and shipping details the request names must be that buyer's.
    """
    if id is not None and resumed:
        earlier = Transaction.objects.filter(merchant_account=merchant_account, pk=id).first()
        if earlier is not None:
            return transaction_sync(txn=earlier, actor=actor, abandoned=True)
    buyer = buyer_named(
        merchant_account=merchant_account,
        buyer_id=request.buyer_id,
        buyer_external_identifier=request.buyer_external_identifier,
        access=access,
    )
    _check_stored_access(request, access=access)
    gift_cards = _gift_card_charges(merchant_account, request.gift_cards, access=access)
    card = (
        request.payment_method.resolve(merchant_account=merchant_account, buyer=buyer)
        if request.payment_method
        else None
    )
    if card is not None and card.payment_method is not None:
        if not access.owns(card.payment_method.buyer):  # resolve looked among the named buyer's: never, kept so
            raise NotFound("The payment method could not be found.", pointer="/payment_method/id")
        buyer = card.payment_method.buyer  # a stored method pays for its own buyer
    shipping_details = _shipping_details(merchant_account, buyer, request.shipping_details_id)
    _check_tender(amount=request.amount, has_card=card is not None, gift_cards=gift_cards)
    _check_store(request, card=card, buyer=buyer)
    _check_connection_options(request.connection_options)
    hints = card.session_hints if card else {}  # what a checkout session declared, where the request is silent
    txn = Transaction(
        merchant_account=merchant_account,
        amount=request.amount,
        currency=request.currency,
        intent=request.intent or hints.get("intent") or PaymentIntent.AUTHORIZE,
        country=request.country or hints.get("country"),
        external_identifier=request.external_identifier,
        metadata=request.metadata,
        cart_items=request.cart_items,
        airline=request.airline,
        checkout_session_id=card.checkout_session_id if card else None,
        payment_source=request.payment_source or hints.get("payment_source") or PaymentSource.ECOMMERCE,
        # `false` is what every request sends when it says nothing (the SDK's default): a session's `true` stands.
        merchant_initiated=request.merchant_initiated or hints.get("merchant_initiated", False),
        is_subsequent_payment=request.is_subsequent_payment or hints.get("is_subsequent_payment", False),
        account_funding_transaction=request.account_funding_transaction,
        allow_partial_authorization=request.allow_partial_authorization,
        previous_scheme_transaction_id=request.previous_scheme_transaction_id,
        previous_transaction_link_id=request.previous_transaction_link_id,
        installment_count=request.installment_count,
        description=request.description,
        statement_descriptor=asdict(request.statement_descriptor) if request.statement_descriptor else None,
        browser_info=asdict(request.browser_info) if request.browser_info else None,
        connection_options=request.connection_options,
        recipient=request.recipient,
        three_d_secure=_three_d_secure_summary(request.three_d_secure),
        ip_address=request.ip_address,
        **asdict(request.purchase),
    )
    if id is not None:
        txn.pk = id
    _set_buyer(txn, buyer=buyer, guest_buyer=request.guest_buyer)
    if shipping_details is not None:
        txn.shipping_details = shipping_details
    try:
        clear_card = _open(txn, actor=actor, card=card, gift_cards=gift_cards)
    except IntegrityError:
        # The earlier attempt is still running after all and made the row first: answer with it.
        earlier = Transaction.objects.filter(merchant_account=merchant_account, pk=txn.pk).first()
        if id is None or earlier is None:
            raise
        return transaction_sync(txn=earlier, actor=actor)
    if clear_card is None:
        return _settle_gift_cards_only(txn, actor=actor)
    card_amount = request.amount - sum(charge.amount for charge in gift_cards)
    postal_code = card.postal_code if card else None
    result = get_connector().authorize(
        _authorization(txn, card=clear_card, amount=card_amount, billing_postal_code=postal_code)
    )
    keep = _card_to_keep(request, card=card, clear_card=clear_card)
    txn = _record_authorization(txn, result=result, card_amount=card_amount, actor=actor, keep=keep)
    return txn if gift_cards else _known_without_redemptions(txn)


def _known_without_redemptions(txn: Transaction) -> Transaction:
    """Mark `txn` as having no gift card redemptions (none were asked for), as a prefetch would: its answer
    reads them, and need not ask the database."""
    txn.__dict__.setdefault("_prefetched_objects_cache", {})["gift_card_redemptions"] = (
        GiftCardRedemption.objects.none()
    )
    return txn


def _check_store(request: TransactionRequest, *, card: PaymentCard | None, buyer: Buyer | None) -> None:
    """`store: true` keeps a card for a buyer: it needs both (a stored method paying is kept already)."""
    if not request.store:
        return
    if card is None:
        raise DomainError("store: true keeps a card, and this transaction pays with gift cards only.", pointer="/store")
    if buyer is None:
        raise DomainError(
            "store: true keeps the card for a buyer: give buyer_id or buyer_external_identifier.", pointer="/store"
        )


def _card_to_keep(
    request: TransactionRequest, *, card: PaymentCard | None, clear_card: CardDetails
) -> CardToStore | None:
    """The card `store: true` asks to keep, unless a stored method is paying already."""
    if not request.store or card is None or card.payment_method is not None:
        return None
    return CardToStore(clear_card.number, clear_card.expiration_month, clear_card.expiration_year)


def _check_stored_access(request: TransactionRequest, *, access: BuyerAccess) -> None:
    """A token confined to no buyer uses nothing a buyer stored, and stores nothing for one (`buyers.access`)."""
    if isinstance(request.payment_method, StoredPaymentMethodRequest):
        access.require_pinned_buyer(what="stored payment methods", pointer="/payment_method/id")
    if request.store:
        access.require_pinned_buyer(what="stored payment methods", pointer="/store")


def _gift_card_charges(
    merchant_account: MerchantAccount, items: Sequence[GiftCardRequest], *, access: BuyerAccess
) -> list[GiftCardCharge]:
    """The program card each item names (number and PIN checked, or a stored card's); errors point at the item."""
    return [
        GiftCardCharge(
            card=issued_card_for_payment(
                merchant_account=merchant_account,
                number=item.number,
                pin=item.pin,
                gift_card_id=item.id,
                pointer=f"/gift_cards/{index}",
                access=access,
            ),
            amount=item.amount,
            gift_card_id=item.id,
        )
        for index, item in enumerate(items)
    ]


def _shipping_details(
    merchant_account: MerchantAccount, buyer: Buyer | None, shipping_details_id: UUID | None
) -> dict[str, Any] | None:
    """A copy of the buyer's stored shipping details the request names, as they are now (later edits of the stored
    details do not change the transaction). Another buyer's details are not found, exactly like missing ones."""
    if shipping_details_id is None:
        return None
    if buyer is None:
        raise DomainError(
            "Shipping details belong to a buyer: name the buyer with buyer_id or buyer_external_identifier.",
            pointer="/shipping_details_id",
        )
    try:
        details = shipping_details_get(merchant_account=merchant_account, buyer_id=buyer.pk, id=shipping_details_id)
    except NotFound as exc:
        raise NotFound(exc.message, pointer="/shipping_details_id") from exc
    return {
        "id": str(details.pk),
        "buyer_id": str(buyer.pk),
        **{name: getattr(details, name) for name in SHIPPING_DETAILS_FIELDS},
    }


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


# --- capture, void, cancel ------------------------------------------------------------------------------


@transaction.atomic
def _begin_capture(txn: Transaction, *, amount: int | None, actor: Actor) -> tuple[Transaction, int]:
    txn = _locked(txn)
    _require("capture", txn)
    if amount is None:
        amount = txn.authorized_amount
    elif amount > txn.authorized_amount:
        raise DomainError(
            f"The capture amount is more than the authorized amount ({txn.authorized_amount}).", pointer="/amount"
        )
    _move(txn, S.CAPTURE_PENDING, name="capture_requested", actor=actor, amount=amount)
    return txn, amount


def transaction_capture(*, txn: Transaction, actor: Actor, amount: int | None = None) -> ActionResult:
    """Capture `amount` (default: all) of the authorization, once; the gift card debits are captured with it."""
    txn, amount = _begin_capture(txn, amount=amount, actor=actor)
    result = None
    if txn.authorized_amount:
        result = get_connector().capture(
            processor_reference=txn.payment_service_transaction_id or "",
            amount=amount,
            currency=txn.currency,
            reference=f"{txn.pk}:capture",
        )
    return ActionResult(_finish_capture(txn, result=result, amount=amount, actor=actor), result)


@transaction.atomic
def _finish_capture(txn: Transaction, *, result: ConnectorResult | None, amount: int, actor: Actor) -> Transaction:
    txn = _locked(txn)
    if txn.status != S.CAPTURE_PENDING:
        return txn  # a sync recorded the processor's answer first
    if result is None or result.approved:
        _move(
            txn,
            S.CAPTURE_SUCCEEDED,
            name="capture_succeeded",
            actor=actor,
            amount=amount,
            captured_amount=amount,
            captured_at=timezone.now(),
        )
    else:
        _move(txn, S.AUTHORIZATION_SUCCEEDED, name=f"capture_{result.outcome}", actor=actor, amount=amount)
    return txn


@transaction.atomic
def _begin_void(txn: Transaction, *, actor: Actor) -> Transaction:
    txn = _locked(txn)
    _require("void", txn)
    _move(txn, S.AUTHORIZATION_VOID_PENDING, name="void_requested", actor=actor)
    return txn


def transaction_void(*, txn: Transaction, actor: Actor) -> ActionResult:
    """Release the authorization and give every gift card its money back."""
    txn = _begin_void(txn, actor=actor)
    result = None
    if txn.authorized_amount:
        result = get_connector().void(
            processor_reference=txn.payment_service_transaction_id or "", reference=f"{txn.pk}:void"
        )
    return ActionResult(_finish_void(txn, result=result, actor=actor), result)


@transaction.atomic
def _finish_void(txn: Transaction, *, result: ConnectorResult | None, actor: Actor) -> Transaction:
    txn = _locked(txn)
    if txn.status != S.AUTHORIZATION_VOID_PENDING:
        return txn  # a sync recorded the processor's answer first
    if result is None or result.approved:
        _move(txn, S.AUTHORIZATION_VOIDED, name="void_succeeded", actor=actor, voided_at=timezone.now())
        _return_gift_cards(txn, actor=actor, card_part_refused=False)
    else:
        _move(txn, S.AUTHORIZATION_SUCCEEDED, name=f"void_{result.outcome}", actor=actor)
    return txn


@transaction.atomic
def transaction_cancel(*, txn: Transaction, actor: Actor) -> Transaction:
    """Stop a transaction still waiting for its authorization and give the gift cards their money back."""
    txn = _locked(txn)
    _require("cancel", txn)
    now = timezone.now()
    _move(txn, S.AUTHORIZATION_VOIDED, name="cancel_succeeded", actor=actor, canceled_at=now, voided_at=now)
    _return_gift_cards(txn, actor=actor, card_part_refused=False)
    return txn


# --- sync and recovery ----------------------------------------------------------------------------------

# Statuses in which an operation is under way: the processor's answer has not been recorded yet.
PENDING: frozenset[str] = frozenset(PENDING_STATUSES)
# What an operation the processor never received is recorded as, once no request can still be sending it.
NEVER_RECEIVED = ConnectorResult(
    outcome=Outcome.FAILED,
    error_code="service_error",
    raw_response_description="The processor has no record of this operation: it did not happen.",
)


def _abandoned(txn: Transaction, now: datetime) -> bool:
    """Pending for longer than any request may run: nothing is still working on it."""
    return txn.updated_at <= now - timedelta(seconds=settings.PENDING_TRANSACTION_RECOVERY_SECONDS)


def _pending_amount(txn: Transaction, name: str) -> int:
    """The amount the pending operation was asked for, from the event that started it."""
    started = txn.events.filter(name=name).order_by("-created_at", "-id").first()
    return started.amount if started is not None and started.amount is not None else txn.authorized_amount


def transaction_sync(
    *, txn: Transaction, actor: Actor, abandoned: bool | None = None, now: datetime | None = None
) -> Transaction:
    """Ask the processor what became of the transaction's pending operation and record its answer, as the
    request that asked would have; a transaction that is not pending is returned unchanged.

    An operation the processor has no record of did not happen: that is recorded only once no request can still
    be sending it (`abandoned`: by default, pending longer than PENDING_TRANSACTION_RECOVERY_SECONDS). An
    authorization that did not happen fails and returns the gift card money; a capture or void that did not
    happen leaves the transaction authorized.
    """
    txn = Transaction.objects.get(pk=txn.pk)
    if txn.status not in PENDING:
        return txn
    if abandoned is None:
        abandoned = _abandoned(txn, now or timezone.now())
    connector = get_connector()
    if txn.status == S.PROCESSING:
        if txn.method != "card":
            # Gift cards alone: their debits are the authorization and nothing was asked of a processor.
            return _settle_gift_cards_only(txn, actor=actor) if abandoned else txn
        result = connector.lookup(reference=str(txn.pk))
        if result is None and not abandoned:
            return txn
        return _record_authorization(txn, result=result or NEVER_RECEIVED, card_amount=_card_amount(txn), actor=actor)
    operation = "capture" if txn.status == S.CAPTURE_PENDING else "void"
    found = connector.lookup(reference=f"{txn.pk}:{operation}") if txn.authorized_amount else None
    if found is None and txn.authorized_amount and not abandoned:
        return txn
    # No card part: nothing was asked, the operation stands (None). A card part never received: it failed.
    result = found or (NEVER_RECEIVED if txn.authorized_amount else None)
    if operation == "capture":
        return _finish_capture(txn, result=result, amount=_pending_amount(txn, "capture_requested"), actor=actor)
    return _finish_void(txn, result=result, actor=actor)


def _card_amount(txn: Transaction) -> int:
    gift_cards = txn.gift_card_redemptions.aggregate(total=Sum("amount"))["total"] or 0
    return txn.amount - gift_cards


@dataclass(frozen=True)
class Recovery:
    """What one recovery run did: the transactions it resolved, and those whose processor could not be asked."""

    resolved: list[Transaction]
    failed: list[UUID]


def transactions_recover_pending(*, now: datetime | None = None, batch_size: int = 100) -> Recovery:
    """Sync up to `batch_size` transactions left pending for longer than PENDING_TRANSACTION_RECOVERY_SECONDS
    (their request died), oldest first: each ends in the status the processor's records give, and gift card
    money held for a card part that never happened goes back. Each is synced on its own: a processor that
    cannot be asked about one (it raises) leaves it pending for the next run and the others resolved."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.PENDING_TRANSACTION_RECOVERY_SECONDS)
    resolved, failed = [], []
    for txn in transactions_pending(updated_before=cutoff)[:batch_size]:
        try:
            resolved.append(transaction_sync(txn=txn, actor=SYSTEM, abandoned=True))
        except Exception:
            logger.exception("Recovery could not sync transaction %s; the next run tries again", txn.pk)
            failed.append(txn.pk)
    return Recovery(resolved, failed)


# --- update ---------------------------------------------------------------------------------------------

UPDATABLE_FIELDS = ("external_identifier", "metadata", "connection_options")


@transaction.atomic
def transaction_update(*, txn: Transaction, actor: Actor, **changes: Any) -> Transaction:
    """Set the given `external_identifier`, `metadata` and/or `connection_options` (each replaced whole)."""
    unknown = set(changes) - set(UPDATABLE_FIELDS)
    if unknown:
        raise TypeError(f"Not updatable: {sorted(unknown)}")
    _check_connection_options(changes.get("connection_options"))
    txn = _locked(txn)
    for name, value in changes.items():
        setattr(txn, name, value)
    txn.save(update_fields=[*changes, "updated_at"])
    _event(txn, name="transaction_updated", actor=actor, from_status=txn.status, fields=sorted(changes))
    return txn


# --- refunds --------------------------------------------------------------------------------------------


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
    if txn.method != "card":
        raise DomainError(
            "This transaction has no payment method to refund; target a gift card redemption.", pointer="/target_type"
        )
    amount = _refund_amount(amount, refundable=txn.captured_amount - txn.refunded_amount, what="payment method")
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
    _event(txn, name="refund_requested", actor=actor, from_status=txn.status, amount=amount, refund=str(refund.pk))
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
    issued_card_refund(card=redemption.issued_card, amount=amount, reference=_redemption_reference(redemption))
    redemption.refunded_amount += amount
    redemption.save(update_fields=["refunded_amount", "updated_at"])
    txn.save(update_fields=["updated_at"])
    _event(
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
    txn = _locked(txn)
    _require("refund", txn)
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
    result = get_connector().refund(
        processor_reference=refund.transaction.payment_service_transaction_id or "",
        amount=refund.amount,
        currency=refund.currency,
        reference=str(refund.pk),
    )
    return _finish_refund(refund, result=result, actor=actor)


@transaction.atomic
def _finish_refund(refund: Refund, *, result: ConnectorResult, actor: Actor) -> Refund:
    """A refused refund gives its reserved amount back to what may still be refunded."""
    txn = _locked(refund.transaction)
    refund = Refund.objects.select_for_update().get(pk=refund.pk)
    refund.payment_service_refund_id = result.processor_reference
    for name, value in _answer(result).items():
        setattr(refund, name, value)
    if result.approved:
        refund.status = RefundStatus.SUCCEEDED
    else:
        refund.status = RefundStatus.DECLINED if result.outcome is Outcome.DECLINED else RefundStatus.FAILED
        txn.refunded_amount -= refund.amount
        txn.save(update_fields=["refunded_amount", "updated_at"])
    refund.save()
    _event(
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


def refund_create(
    *,
    txn: Transaction,
    actor: Actor,
    amount: int | None = None,
    target_type: str = RefundTargetType.PAYMENT_METHOD,
    target_id: UUID | None = None,
    reason: str | None = None,
    external_identifier: str | None = None,
) -> Refund:
    """Refund `amount` (default: all that is left) of the payment method or of one gift card; never more."""
    refund = _begin_refund(
        txn,
        actor=actor,
        amount=amount,
        target_type=target_type,
        target_id=target_id,
        reason=reason,
        external_identifier=external_identifier,
    )
    if refund.status != RefundStatus.PROCESSING:
        return refund
    return _send_refund(refund, actor=actor)


@transaction.atomic
def _begin_refund_all(txn: Transaction, *, actor: Actor, **fields: Any) -> list[Refund]:
    txn = _locked(txn)
    _require("refund", txn)
    refunds = []
    if txn.method == "card" and txn.captured_amount > txn.refunded_amount:
        refunds.append(_reserve_card_refund(txn, amount=None, actor=actor, **fields))
    for redemption in _redemptions_for_update(txn):
        if redemption.refundable_amount:
            refunds.append(_refund_gift_card(txn, redemption=redemption, amount=None, actor=actor, **fields))
    if not refunds:
        raise Conflict("Nothing is left to refund on this transaction.")
    _require_refund_room(txn, adding=0)  # the refunds above are rows already: counted, and undone if too many
    return refunds


def refund_all(
    *, txn: Transaction, actor: Actor, reason: str | None = None, external_identifier: str | None = None
) -> list[Refund]:
    """Refund everything left on every instrument: the payment method and each gift card."""
    refunds = _begin_refund_all(txn, actor=actor, reason=reason, external_identifier=external_identifier)
    return [
        _send_refund(refund, actor=actor) if refund.status == RefundStatus.PROCESSING else refund for refund in refunds
    ]
