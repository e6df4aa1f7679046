"""Writes of payment links: create, expire (by the merchant or by time), and the one payment a link may take.

One link, one successful payment: a payment claims the link under its row lock (`active` -> `processing`, naming
the transaction), and only the transaction that claimed it settles it (`completed`, or back to `active` when the
payment failed, so the buyer may try again). A second buyer meets a link that is no longer active and is refused.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.selectors import payment_link_get_by_id
from payments.accounts.models import MerchantAccount
from payments.choices import PaymentIntent
from payments.errors import Conflict, DomainError
from payments.outbox import outbox_publish
from payments.shapes.processor_data import StatementDescriptorSerializer
from transactions.models import Transaction, TransactionStatus
from transactions.requests import (
    CheckoutSessionRequest,
    GiftCardRequest,
    RedirectPaymentRequest,
    TransactionRequest,
    WalletPaymentRequest,
)
from transactions.services.create import transaction_create
from transactions.services.state import Actor

S = PaymentLinkStatus
PAYMENT_LINK_TARGET = "payment-link"
# Webhook event names of a link's own changes (a link's transaction notifies as every transaction does).
EVENT_COMPLETED = "payment-link.completed"
EVENT_EXPIRED = "payment-link.expired"
EXPIRE_BATCH_SIZE = 500
# Longer than any request may run (gunicorn's timeout): a claim this old with no transaction was abandoned.
CLAIM_ABANDONED_AFTER = timedelta(minutes=10)


class LinkNotPayable(Conflict):
    """The link takes no payment now: already paid, being paid, or expired."""


def _notify(link: PaymentLink, name: str) -> None:
    outbox_publish(
        merchant_account_id=link.merchant_account_id, name=name, target_type=PAYMENT_LINK_TARGET, target_id=str(link.pk)
    )


def payment_link_create(
    *, merchant_account: MerchantAccount, expires_at: datetime | None = None, **fields: Any
) -> PaymentLink:
    """A new active link; a deadline must lie ahead (a link born expired could never be paid)."""
    if expires_at is not None and expires_at <= timezone.now():
        raise DomainError("Must be in the future.", pointer="/expires_at")
    return PaymentLink.objects.create(merchant_account=merchant_account, expires_at=expires_at, **fields)


@transaction.atomic
def payment_link_expire(*, link: PaymentLink) -> PaymentLink:
    """The link takes no more payments. Expiring an expired link changes nothing; a completed link stays completed,
    and one being paid cannot be expired under its buyer (409)."""
    link = PaymentLink.objects.select_for_update().get(pk=link.pk)
    if link.status == S.EXPIRED:
        return link
    if link.status == S.COMPLETED:
        raise Conflict("The payment link has been paid and cannot be expired.")
    if link.status == S.PROCESSING:
        raise Conflict("A payment of this link is under way; it cannot be expired until it ends.")
    return _expire(link)


def _expire(link: PaymentLink) -> PaymentLink:
    link.status = S.EXPIRED
    if link.expires_at is None or link.expires_at > timezone.now():
        link.expires_at = timezone.now()
    link.save(update_fields=["status", "expires_at", "updated_at"])
    _notify(link, EVENT_EXPIRED)
    return link


def payment_links_tend() -> dict[str, int]:
    """The scheduled job: links past their deadline are recorded expired (each with its webhook), and links being
    paid record how their transaction ended (a 3-D Secure challenge answered, a payment recovered)."""
    expired = payment_links_expire_due()
    synced = 0
    for link in PaymentLink.objects.filter(status=S.PROCESSING).order_by("updated_at")[:EXPIRE_BATCH_SIZE]:
        synced += payment_link_sync(link=link).status != S.PROCESSING
    return {"expired": expired, "settled": synced}


def payment_links_expire_due(*, batch_size: int = EXPIRE_BATCH_SIZE) -> int:
    """Record `expired` on active links whose `expires_at` has passed (the scheduled job), one batch; each one's
    webhook is published with its change. Rows another worker holds are left for its run."""
    with transaction.atomic():
        due = list(
            PaymentLink.objects.select_for_update(skip_locked=True)
            .filter(status=S.ACTIVE, expires_at__lte=timezone.now())
            .order_by("expires_at")[:batch_size]
        )
        for link in due:
            _expire(link)
    return len(due)


@transaction.atomic
def payment_link_claim(*, link_id: uuid.UUID, transaction_id: uuid.UUID) -> PaymentLink:
    """Reserve the link for one payment (`processing`, naming `transaction_id`) before any money moves; a link that
    is not active (or is past its `expires_at`) is refused, so two buyers paying at once make one payment."""
    link = PaymentLink.objects.select_for_update().get(pk=link_id)
    if link.status == S.PROCESSING and link.transaction_id == transaction_id:
        return link  # the same payment asked again (its idempotency key): it holds the claim already
    if link.shown_status != S.ACTIVE:
        raise LinkNotPayable(_not_payable_message(link.shown_status))
    link.status = S.PROCESSING
    link.transaction_id = transaction_id
    link.save(update_fields=["status", "transaction_id", "updated_at"])
    return link


@transaction.atomic
def payment_link_settle(*, link_id: uuid.UUID, transaction_id: uuid.UUID, succeeded: bool) -> PaymentLink:
    """The claiming payment ended: `completed` when it succeeded, else the link is payable again. A transaction that
    did not claim the link changes nothing (a late or repeated answer)."""
    link = PaymentLink.objects.select_for_update().get(pk=link_id)
    if link.status != S.PROCESSING or link.transaction_id != transaction_id:
        return link
    if succeeded:
        link.status = S.COMPLETED
        link.save(update_fields=["status", "updated_at"])
        _notify(link, EVENT_COMPLETED)
    else:
        link.status = S.ACTIVE
        link.transaction_id = None
        link.save(update_fields=["status", "transaction_id", "updated_at"])
    return link


def _not_payable_message(status: str) -> str:
    messages: dict[str, str] = {
        S.COMPLETED: "This payment link has already been paid.",
        S.PROCESSING: "A payment of this payment link is already under way.",
        S.EXPIRED: "This payment link has expired.",
    }
    return messages[status]


# A payment by a buyer on the link's page: recorded on the transaction's history as the buyer's.
BUYER = Actor("system", "buyer")
# How a link's page pays it beside gift cards: its card fields, PayPal's button, or a wallet's button.
LinkPaymentMethod = CheckoutSessionRequest | RedirectPaymentRequest | WalletPaymentRequest

_FAILED = {TransactionStatus.AUTHORIZATION_DECLINED, TransactionStatus.AUTHORIZATION_FAILED}


def payment_link_pay(
    *,
    link: PaymentLink,
    checkout_session_id: uuid.UUID | None,
    redirect_url: str | None,
    gift_cards: tuple[GiftCardRequest, ...] = (),
    approved_at_processor: RedirectPaymentRequest | None = None,
    wallet: WalletPaymentRequest | None = None,
    transaction_id: uuid.UUID | None = None,
    resumed: bool = False,
    ip_address: str | None = None,
    server_base_url: str | None = None,
) -> Transaction:
    """Pay the link with what Secure Fields left on the checkout session and any gift cards, or with gift cards alone
    (no `checkout_session_id`) when they cover the whole amount: the link is claimed first (a second buyer is refused
    before any money moves), then the transaction is made from the link's order, then the link records how it ended
    (`payment_link_sync`). A payment still waiting (a 3-D Secure challenge) keeps
    the link `processing` until its transaction ends; `redirect_url` is where such a challenge sends the buyer back.
    `transaction_id` and `resumed` are the idempotency key's: a retry of the request that claimed the link resumes
    its payment rather than meeting its own claim. `approved_at_processor` pays it instead with a payment the buyer
    approves at the processor (PayPal, chosen on the page): authorized once approved, as every such payment here,
    whatever the link's intent (the merchant captures it), and the link stays `processing` until the buyer is back.
    `wallet` pays it with an Apple Pay or Google Pay token from the page's wallet button, as a card is: the link's
    intent, gift cards beside it, and a 3-D Secure challenge where Google Pay's card asks for one."""
    transaction_id = transaction_id or uuid.uuid4()
    payment_link_claim(link_id=link.pk, transaction_id=transaction_id)
    method: LinkPaymentMethod | None = approved_at_processor or wallet
    if checkout_session_id is not None:
        method = CheckoutSessionRequest(session_id=checkout_session_id, redirect_url=redirect_url)
    request = _transaction_request(link, payment_method=method)
    if approved_at_processor is not None:
        request = dataclasses.replace(request, intent=PaymentIntent.AUTHORIZE)
    request = dataclasses.replace(
        request, gift_cards=gift_cards, ip_address=ip_address, server_base_url=server_base_url
    )
    try:
        txn = transaction_create(
            merchant_account=link.merchant_account, actor=BUYER, request=request, id=transaction_id, resumed=resumed
        )
    except DomainError:
        # Refused: before anything was written (a session with no card, a route nowhere) the link is payable again;
        # a transaction that was written (a processor that did not answer) holds it until recovery ends it.
        if not Transaction.objects.filter(pk=transaction_id).exists():
            payment_link_settle(link_id=link.pk, transaction_id=transaction_id, succeeded=False)
        raise
    payment_link_sync(link=PaymentLink.objects.get(pk=link.pk))
    return txn


def payment_link_pay_pinned(
    *, order_id: str, request: TransactionRequest, id: uuid.UUID | None, resumed: bool
) -> Transaction:
    """`POST /transactions` with a token the link's page minted (`paymentlinks.embed`): the link it pins is paid
    with the page's checkout session (the token pins that too) and the gift cards the buyer added, with an Apple Pay or
    Google Pay token from the page's wallet buttons, with PayPal, or with gift cards alone when they cover the whole
    amount (the body then has no payment method). What the link's
    order says (amount, intent, buyer, cart...) comes from the link, never from the body."""
    link = payment_link_get_by_id(id=order_id)
    method = request.payment_method
    if isinstance(method, RedirectPaymentRequest):
        return payment_link_pay(
            link=link,
            checkout_session_id=None,
            redirect_url=None,
            gift_cards=request.gift_cards,  # refused by name: PayPal takes no gift cards beside it
            approved_at_processor=method,
            transaction_id=id,
            resumed=resumed,
            ip_address=request.ip_address,
            server_base_url=request.server_base_url,
        )
    wallet = method if isinstance(method, WalletPaymentRequest) else None
    if method is not None and wallet is None and not isinstance(method, CheckoutSessionRequest):
        raise DomainError(
            "A payment link is paid with its page's card fields, Apple Pay or Google Pay, or a method the buyer "
            "approves at the processor.",
            pointer="/payment_method",
        )
    session = method if isinstance(method, CheckoutSessionRequest) else None
    return payment_link_pay(
        link=link,
        checkout_session_id=session.session_id if session else None,
        redirect_url=session.redirect_url if session else None,
        gift_cards=request.gift_cards,
        wallet=wallet,
        transaction_id=id,
        resumed=resumed,
        ip_address=request.ip_address,
        server_base_url=request.server_base_url,
    )


def _transaction_request(link: PaymentLink, *, payment_method: LinkPaymentMethod | None) -> TransactionRequest:
    """The link's order as a transaction: its amount, currency and country, its intent, cart, buyer, metadata,
    statement descriptor and connection options, and the link's id, by which its transactions are found."""
    return TransactionRequest(
        amount=link.amount,
        currency=link.currency,
        country=link.country,
        intent=link.intent,
        payment_source=link.payment_source,
        payment_method=payment_method,
        guest_buyer=link.buyer,
        external_identifier=link.external_identifier,
        metadata=link.metadata,
        cart_items=link.cart_items,
        statement_descriptor=StatementDescriptorSerializer.build(link.statement_descriptor),
        connection_options=link.connection_options,
        payment_link_id=link.pk,
    )


def payment_link_payment_ended(*, txn: Transaction) -> None:
    """A link's payment that waited for the buyer (a 3-D Secure challenge) ended: the link records it at once, not at
    the next tend or when its page is opened again (registered with `transactions.pinned_orders`)."""
    if txn.payment_link_id is None:
        return
    link = PaymentLink.objects.filter(pk=txn.payment_link_id).first()
    if link is not None:
        payment_link_sync(link=link)


def payment_link_sync(*, link: PaymentLink) -> PaymentLink:
    """A link being paid records how its transaction ended: `completed` once the money was authorized, payable
    again when it was declined or failed; a payment still under way leaves it as it is."""
    if link.status != S.PROCESSING or link.transaction_id is None:
        return link
    txn = Transaction.objects.filter(pk=link.transaction_id).only("status", "authorized_at").first()
    if txn is None:
        # Claimed, and no transaction yet: its request may still be on its way to writing it. Only a claim older
        # than any request lives (a process that died between the two) gives the link back.
        if link.updated_at <= timezone.now() - CLAIM_ABANDONED_AFTER:
            return payment_link_settle(link_id=link.pk, transaction_id=link.transaction_id, succeeded=False)
        return link
    if txn.authorized_at is not None:
        return payment_link_settle(link_id=link.pk, transaction_id=txn.pk, succeeded=True)
    if txn.status in _FAILED:
        return payment_link_settle(link_id=link.pk, transaction_id=txn.pk, succeeded=False)
    return link
