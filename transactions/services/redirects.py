"""Payments the buyer approves on the processor's own pages (a `RedirectConnector`'s: docs/payment-services.md,
"PayPal").

1. `redirect_payment_create`: the `processing` row is written before any processor is asked; each service of the
   route is asked to open the payment (an order) in turn, failing over only when one gives no answer. The opened
   payment waits for the buyer (`buyer_approval_pending`, `approval_url` = the processor's approve link) on the
   challenge flow 3-D Secure uses: one token, sealed for reads, found by its digest, ended once.
2. `redirect_return`: the processor sends the buyer back to this server's return page with the token in its path and
   its own id of the payment in the query. A foreign id, a used or expired token change nothing; a cancel declines;
   an approval goes back to `processing` (recorded before the processor is asked) and is authorized, then the buyer
   goes on to the payment's `redirect_url`.
3. `redirect_sync`: recovery of a payment left `processing` reads what the processor holds (by its id of the payment)
   and settles it, authorizing an approved one once (the processor's idempotency key is our reference).
"""

from __future__ import annotations

import secrets
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from buyers.access import BuyerAccess
from buyers.selectors import buyer_named
from payments.accounts.models import MerchantAccount
from payments.choices import PaymentIntent, PaymentSource
from payments.connectors import (
    ConnectorResult,
    Outcome,
    OutcomeUnknown,
    PaymentConnector,
    RedirectConnector,
    RedirectRequest,
)
from payments.errors import DomainError
from paymentservices.routing import ask_routed, route
from transactions.details import payment_details_columns
from transactions.models import ThreeDSecureChallenge, Transaction, TransactionStatus
from transactions.pinned_orders import pinned_orders_payment_ended
from transactions.requests import RedirectPaymentRequest, TransactionRequest
from transactions.services.authentication import (
    FAILED_AUTHENTICATION,
    authentication_refuse,
    challenge_begin,
    challenge_token_digest,
)
from transactions.services.authorization import NEVER_RECEIVED, record_authorization, record_failover
from transactions.services.state import (
    Actor,
    check_connection_options,
    connector_of,
    locked_for_update,
    move_to,
    record_event,
    set_buyer,
)

S = TransactionStatus
# Who returns from the processor's page: the buyer (no API key, no staff user).
BUYER = Actor("system", "buyer")
RETURN_PAGE = "buyer-approval-return"
CANCEL_PAGE = "buyer-approval-cancel"


class ApprovalUnavailable(DomainError):
    """The return page cannot be used: an unknown token, or one of a payment that waits for no approval here."""

    status = 404


class ApprovalEnded(ApprovalUnavailable):
    """The approval was already used, canceled or expired: nothing changed."""

    status = 410


class ForeignApproval(DomainError):
    """The processor's id in the return is not this payment's (another payment's approval): nothing changed."""


def _not_redirect(connector: PaymentConnector) -> ConnectorResult:
    return ConnectorResult(
        outcome=Outcome.FAILED,
        error_code="invalid_service_configuration",
        raw_response_description="The payment service's processor takes no payments the buyer approves on its page.",
    )


def _check_method(request: TransactionRequest, method: RedirectPaymentRequest) -> None:
    """What this server does not do with a payment the buyer approves on the processor's page (whichever processor runs
    it) is refused by name, before anything is written."""
    if request.gift_cards:
        raise DomainError(
            "A payment the buyer approves at the processor takes no gift cards: pay them in a transaction of their "
            "own.",
            pointer="/gift_cards",
        )
    if request.store:
        raise DomainError(
            "store: true keeps a card; a payment the buyer approves at the processor stores nothing.", pointer="/store"
        )
    if request.intent == PaymentIntent.CAPTURE:
        raise DomainError(
            "A payment the buyer approves at the processor is authorized once approved: send intent authorize and "
            "capture it with POST /transactions/{transaction_id}/capture.",
            pointer="/intent",
        )
    if method.currency is not None and method.currency != request.currency:
        raise DomainError(
            "payment_method.currency must be the transaction's currency.", pointer="/payment_method/currency"
        )
    if method.country is not None and request.country is not None and method.country != request.country:
        raise DomainError(
            "payment_method.country must be the transaction's country.", pointer="/payment_method/country"
        )


def _return_urls(request: TransactionRequest, token: str) -> tuple[str, str]:
    """Where the processor sends the buyer back: this server's return and cancel pages for `token`."""
    base = (settings.PUBLIC_BASE_URL or request.server_base_url or "http://localhost").rstrip("/")
    return (
        base + reverse(RETURN_PAGE, kwargs={"token": token}),
        base + reverse(CANCEL_PAGE, kwargs={"token": token}),
    )


def redirect_payment_create(
    *,
    merchant_account: MerchantAccount,
    actor: Actor,
    request: TransactionRequest,
    method: RedirectPaymentRequest,
    id: UUID | None,
    access: BuyerAccess,
) -> Transaction:
    """Open a payment the buyer approves at the processor (see the module docstring); it answers waiting for the
    buyer, or declined or failed as the processor said. Routed only to services whose definition takes the method."""
    _check_method(request, method)
    buyer = buyer_named(
        merchant_account=merchant_account,
        buyer_id=request.buyer_id,
        buyer_external_identifier=request.buyer_external_identifier,
        access=access,
    )
    country = request.country or method.country
    routed = route(
        merchant_account=merchant_account,
        currency=request.currency,
        country=country,
        payment_service_id=request.payment_service_id,
        method=method.method,
    )
    if request.connection_options:
        check_connection_options(request.connection_options, frozenset())
    txn = Transaction(
        **payment_details_columns(request),
        merchant_account=merchant_account,
        amount=request.amount,
        currency=request.currency,
        intent=PaymentIntent.AUTHORIZE,
        country=country,
        external_identifier=request.external_identifier,
        metadata=request.metadata,
        payment_source=request.payment_source or PaymentSource.ECOMMERCE,
        merchant_initiated=request.merchant_initiated,
        is_subsequent_payment=request.is_subsequent_payment,
        ip_address=request.ip_address,
        method=method.method,
        checkout_session_id=method.checkout_session_id,
        payment_link_id=request.payment_link_id,  # the link it pays: found from the link, and settles it
        payment_service=routed.first,  # the first attempt's, committed with the row before it is asked
    )
    if id is not None:
        txn.pk = id
    set_buyer(txn, buyer=buyer, guest_buyer=request.guest_buyer)
    _open(txn, actor=actor)
    token = secrets.token_urlsafe(32)
    return_url, cancel_url = _return_urls(request, token)
    opening = RedirectRequest(
        amount=txn.amount,
        currency=txn.currency,
        reference=str(txn.pk),
        return_url=return_url,
        cancel_url=cancel_url,
        description=request.description,
    )
    service, result = ask_routed(
        route=routed,
        ask=lambda connector: (
            connector.redirect_begin(opening) if isinstance(connector, RedirectConnector) else _not_redirect(connector)
        ),
        next_attempt=lambda failed, answer, following: record_failover(
            txn, failed=failed, result=answer, following=following, actor=actor
        ),
    )
    if result.outcome is Outcome.BUYER_ACTION and result.approval_link:
        return _wait_for_buyer(txn, result=result, token=token, redirect_url=method.redirect_url, actor=actor)
    if result.outcome is Outcome.BUYER_ACTION:  # the processor named no page for the buyer: nothing can go on
        result = ConnectorResult(
            outcome=Outcome.FAILED,
            processor_reference=result.processor_reference,
            error_code="service_error",
            raw_response_code=result.raw_response_code,
            raw_response_description="The processor gave no page for the buyer to approve the payment.",
        )
    return record_authorization(txn, result=result, card_amount=txn.amount, actor=actor, service=service)


@transaction.atomic
def _open(txn: Transaction, *, actor: Actor) -> None:
    txn.save(force_insert=True)
    record_event(txn, name="transaction_created", actor=actor, from_status=None, amount=txn.amount)


@transaction.atomic
def _wait_for_buyer(
    txn: Transaction, *, result: ConnectorResult, token: str, redirect_url: str, actor: Actor
) -> Transaction:
    """The processor opened the payment: it waits for the buyer at the processor's approve link until
    `approval_expires_at` (the expiry job ends it then), unless it was canceled meanwhile."""
    txn = locked_for_update(txn)
    if txn.status != S.PROCESSING:
        return txn  # canceled while the processor was asked: nothing was approved, so nothing is held
    txn.payment_service_transaction_id = result.processor_reference
    txn.save(update_fields=["payment_service_transaction_id", "updated_at"])
    return challenge_begin(
        txn,
        actor=actor,
        redirect_url=redirect_url,
        store_card=False,
        token=token,
        approval_link=result.approval_link or "",
    )


# --- the buyer's return -----------------------------------------------------------------------------------------


def _waiting(token: str) -> tuple[ThreeDSecureChallenge, Transaction]:
    """The approval of `token` and its transaction, both locked (the transaction first), still waiting and not
    expired; else ApprovalUnavailable."""
    found = ThreeDSecureChallenge.objects.filter(token_digest=challenge_token_digest(token)).first()
    if found is None or not found.approval_link:
        raise ApprovalUnavailable("This return page does not exist.")
    txn = Transaction.objects.select_for_update().get(pk=found.transaction_id)
    challenge = ThreeDSecureChallenge.objects.select_for_update().get(pk=found.pk)
    if not challenge.waiting or txn.status != S.BUYER_APPROVAL_PENDING:
        raise ApprovalEnded("This payment's approval has already ended: nothing was charged or changed.")
    if challenge.expires_at <= timezone.now():
        raise ApprovalEnded("This payment's approval has expired: nothing was charged.")
    return challenge, txn


def redirect_return(*, token: str, processor_token: str, canceled: bool) -> tuple[Transaction, str]:
    """The buyer is back from the processor (see the module docstring). Returns the transaction and where the buyer
    goes next (the payment's `redirect_url`); the order the payment pays (a payment link) records how it ended before
    the buyer gets there."""
    txn, next_url = _returned(token=token, processor_token=processor_token, canceled=canceled)
    pinned_orders_payment_ended(txn=txn)
    return txn, next_url


def _returned(*, token: str, processor_token: str, canceled: bool) -> tuple[Transaction, str]:
    with transaction.atomic():
        challenge, txn = _waiting(token)
        if not processor_token or processor_token != txn.payment_service_transaction_id:
            raise ForeignApproval(
                "The return names another payment than this page's: nothing was charged or changed.", pointer="token"
            )
        challenge.state = ThreeDSecureChallenge.State.COMPLETED
        challenge.save(update_fields=["state", "updated_at"])
        record_event(txn, name="buyer_approval_result", actor=BUYER, from_status=txn.status, canceled=canceled)
        if canceled:
            authentication_refuse(
                txn,
                error_code=FAILED_AUTHENTICATION,
                description="The buyer canceled at the processor.",
                card_amount=txn.amount,
                actor=BUYER,
            )
            return txn, challenge.redirect_url
        # Recorded before the processor is asked: a crash from here leaves it to recovery (`redirect_sync`).
        move_to(txn, S.PROCESSING, name="buyer_approval_succeeded", actor=BUYER, amount=txn.amount)
    return _authorize(txn, actor=BUYER), challenge.redirect_url


def _authorize(txn: Transaction, *, actor: Actor) -> Transaction:
    """Authorize the approved payment at its processor and record the answer. An authorization that got no answer
    is read back (it may have been made): what the processor holds is recorded, so nothing is held unrecorded."""
    connector = connector_of(txn)
    order = txn.payment_service_transaction_id or ""
    if not isinstance(connector, RedirectConnector):
        return record_authorization(txn, result=_not_redirect(connector), card_amount=txn.amount, actor=actor)
    try:
        result = connector.redirect_authorize(processor_reference=order, reference=f"{txn.pk}:authorize")
        if result.outcome is Outcome.FAILED:
            held = connector.redirect_status(processor_reference=order)
            if held.approved:
                result = held
    except OutcomeUnknown as exc:
        return _undecided(txn, actor=actor, why=str(exc))
    return record_authorization(txn, result=result, card_amount=txn.amount, actor=actor)


@transaction.atomic
def _undecided(txn: Transaction, *, actor: Actor, why: str) -> Transaction:
    """The processor has not decided the authorization (PayPal's `PENDING`): no approval and no decline. The payment
    stays `processing` for the processor's word: its notification, or recovery's next read (`redirect_sync`)."""
    txn = locked_for_update(txn)
    if txn.status == S.PROCESSING:
        record_event(txn, name="authorization_undecided", actor=actor, from_status=txn.status, reason_given=why)
    return txn


def redirect_sync(txn: Transaction, *, actor: Actor, abandoned: bool) -> Transaction:
    """Recovery of a payment left `processing`: what the processor holds decides. Before the processor named the
    payment (its opening got no recorded answer) nobody can have approved it, so once abandoned it did not happen."""
    order = txn.payment_service_transaction_id
    connector = connector_of(txn)
    if not order or not isinstance(connector, RedirectConnector):
        return (
            record_authorization(txn, result=NEVER_RECEIVED, card_amount=txn.amount, actor=actor) if abandoned else txn
        )
    try:
        held = connector.redirect_status(processor_reference=order)
    except OutcomeUnknown:
        return txn  # not decided at the processor yet (an authorization it holds pending): the next run asks again
    if held.outcome is Outcome.BUYER_ACTION and held.raw_response_code == "APPROVED":
        return _authorize(txn, actor=actor)
    if held.outcome is Outcome.FAILED:
        return txn  # the processor cannot say now: the next run asks again
    if held.outcome is Outcome.BUYER_ACTION:  # never approved: nothing is held
        return (
            record_authorization(txn, result=NEVER_RECEIVED, card_amount=txn.amount, actor=actor) if abandoned else txn
        )
    return record_authorization(txn, result=held, card_amount=txn.amount, actor=actor)
