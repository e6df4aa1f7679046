"""Every write of a payout, in three steps a crash between any two of which is recoverable: the `pending` row first
(committed), the processor next (outside any transaction), the outcome last (under the row's lock). Our reference (the
payout's id) is the processor's reference and idempotency key, so asking again, as recovery does for a payout whose
answer was lost, is answered with what the processor did the first time: nothing is paid twice (docs/payouts.md)."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from buyers.models import Buyer
from buyers.selectors import buyer_named
from paymentmethods.models import PaymentMethod
from paymentmethods.selectors import payment_method_for_payment
from payments.accounts.models import MerchantAccount
from payments.connectors.base import ConnectorResult, Outcome, OutcomeUnknown
from payments.errors import DomainError, NotFound
from payments.money import format_money
from payments.outbox import outbox_publish
from payments.vault import cards
from payments.vault.models import VaultedCard
from payments.vault.services import vaulted_card_delete, vaulted_card_reveal, vaulted_card_store
from paymentservices.models import PaymentService
from paymentservices.notifications import Matched, ProcessorEvent
from paymentservices.processors import processor_get
from paymentservices.processors.calls import NO_ANSWER, no_answer
from paymentservices.processors.paying_out import (
    CardPayouts,
    PayoutMerchantDetails,
    PayoutRecipient,
    PayoutRequest,
)
from paymentservices.routing import NoPaymentService, route
from paymentservices.services import CredentialsUnusable, payment_service_connector_credentials
from payouts.models import Payout, PayoutAccountLimit, PayoutStatus
from payouts.requests import PayoutCard, PayoutCreateRequest, PayoutStoredCard

logger = logging.getLogger(__name__)

SERVICE_POINTER = "/payment_service_id"
PAYOUT_TARGET = "payout"
# What webhook receivers are told, named after the status a payout reaches (ours: upstream names no payout events).
PAYOUT_EVENTS: dict[str, str] = {
    PayoutStatus.PENDING: "payout.pending",
    PayoutStatus.SUCCEEDED: "payout.succeeded",
    PayoutStatus.DECLINED: "payout.declined",
    PayoutStatus.FAILED: "payout.failed",
}


PayoutHook = Callable[[Payout], object]
# Told of each payout as it succeeds, inside the transaction that records it: the settlement ledger's line (an app
# above this one, which registers at start: settlements.apps).
_succeeded_hooks: list[PayoutHook] = []


def payout_succeeded_register(hook: PayoutHook) -> None:
    """Have `hook` called with each payout once, as it succeeds, in the transaction that records the success."""
    if hook not in _succeeded_hooks:
        _succeeded_hooks.append(hook)


class PayoutRefused(DomainError):
    """A payout this server will not ask for (over the limit, no service that can pay out): a 400, nothing written."""


def _notify(payout: Payout) -> None:
    """The payout was just created or reached its outcome: published with the change (`payments.outbox`)."""
    outbox_publish(
        merchant_account_id=payout.merchant_account_id,
        name=PAYOUT_EVENTS[payout.status],
        target_type=PAYOUT_TARGET,
        target_id=str(payout.pk),
    )


def payout_server_limit(currency: str) -> int:
    """The server's largest payout in `currency`, in minor units: PAYOUT_MAX_AMOUNTS' entry for the currency, else
    PAYOUT_MAX_AMOUNT (docs/payouts.md)."""
    limits: dict[str, int] = settings.PAYOUT_MAX_AMOUNTS
    return int(limits.get(currency, settings.PAYOUT_MAX_AMOUNT))


def payout_limit_ceiling() -> int:
    """The largest limit an account may set itself: the largest of the server's (each currency keeps its own)."""
    limits: dict[str, int] = settings.PAYOUT_MAX_AMOUNTS
    return max([int(settings.PAYOUT_MAX_AMOUNT), *(int(limit) for limit in limits.values())])


def payout_account_limit(*, merchant_account: MerchantAccount) -> int | None:
    """The limit the account set itself on the desk, in minor units; None when it set none."""
    return (
        PayoutAccountLimit.objects.filter(merchant_account=merchant_account)
        .values_list("max_amount", flat=True)
        .first()
    )


@transaction.atomic
def payout_account_limit_set(*, merchant_account: MerchantAccount, max_amount: int | None) -> None:
    """Set the account's own payout limit (None: the server's limits alone); above the server's ceiling, or below 1,
    is refused."""
    if max_amount is None:
        PayoutAccountLimit.objects.filter(merchant_account=merchant_account).delete()
        return
    ceiling = payout_limit_ceiling()
    if not 1 <= max_amount <= ceiling:
        raise DomainError(f"A payout limit is from 1 to {ceiling} minor units (the server's limit).")
    PayoutAccountLimit.objects.update_or_create(merchant_account=merchant_account, defaults={"max_amount": max_amount})


def _payouts_of(service: PaymentService) -> CardPayouts | None:
    processor = processor_get(service.definition_id)
    return processor.payouts if processor is not None else None


def payout_service(
    *, merchant_account: MerchantAccount, currency: str, payment_service_id: uuid.UUID | None
) -> PaymentService:
    """The service that pays out: the one named (refused by name when its processor cannot pay out to cards, or it
    cannot take the currency), else the first of the account's routing order whose processor can."""
    if payment_service_id is not None:
        service = route(
            merchant_account=merchant_account, currency=currency, payment_service_id=payment_service_id
        ).first
        if _payouts_of(service) is None:
            processor = processor_get(service.definition_id)
            name = processor.display_name if processor is not None else service.definition_id
            raise PayoutRefused(
                f"The payment service '{service.display_name}' ({name}, {service.definition_id}) cannot pay out to "
                "cards: its definition's features say `payouts: false`.",
                pointer=SERVICE_POINTER,
            )
        return service
    try:
        services = route(merchant_account=merchant_account, currency=currency).services
    except NoPaymentService:
        services = ()
    for service in services:
        if _payouts_of(service) is not None:
            return service
    raise PayoutRefused(
        f"No active payment service of this merchant account can pay out in {currency}: connect one whose "
        "definition's features say `payouts: true`, or name one with payment_service_id.",
        pointer=SERVICE_POINTER,
    )


def _limit_require(*, merchant_account: MerchantAccount, amount: int, currency: str) -> None:
    server = payout_server_limit(currency)
    own = payout_account_limit(merchant_account=merchant_account)
    if own is not None and own < server and amount > own:
        raise PayoutRefused(
            f"The payout is over the limit of {format_money(own, currency)} a payout this merchant account set "
            "itself (its payout limit, on the support desk's merchant account page).",
            pointer="/amount",
        )
    if amount > server:
        raise PayoutRefused(
            f"The payout is over this merchant account's limit of {format_money(server, currency)} a payout.",
            pointer="/amount",
        )
    if amount < 1:
        raise PayoutRefused("A payout must move money: its amount is at least 1.", pointer="/amount")


def _buyer_details(buyer: Buyer | None, guest: dict[str, Any] | None) -> dict[str, Any] | None:
    """The buyer as it is now (upstream's `TransactionBuyer`), or the guest's details."""
    if buyer is not None:
        return {
            "id": str(buyer.pk),
            "display_name": buyer.display_name,
            "external_identifier": buyer.external_identifier,
            "billing_details": buyer.billing_details,
            "account_number": buyer.account_number,
        }
    if guest:
        details = {key: value for key, value in guest.items() if key != "shipping_details"}
        return {"id": None, **details}
    return None


def _card_fields(card: VaultedCard) -> dict[str, Any]:
    return {
        "card": card,
        "card_scheme": card.scheme,
        "card_bin": card.bin,
        "card_last4": card.last4,
        "card_expiration_date": card.expiration_date,
        "card_fingerprint": card.fingerprint,
        "card_type": card.card_type,
        "card_country": card.country,
        "card_issuer_name": card.issuer_name,
    }


def _card(
    *, merchant_account: MerchantAccount, method: PayoutCard | PayoutStoredCard, buyer: Buyer | None
) -> tuple[VaultedCard, PaymentMethod | None]:
    """The card the money goes to: a stored method (the buyer's, when one is named), or a card given once, sealed
    until the payout is decided (at most PAYOUT_CARD_RETENTION_SECONDS)."""
    if isinstance(method, PayoutStoredCard):
        stored = payment_method_for_payment(
            merchant_account=merchant_account,
            id=method.id,
            buyer_id=buyer.pk if buyer else None,
            pointer="/payment_method/id",
        )
        return stored.card, stored
    try:
        card = vaulted_card_store(
            merchant_account=merchant_account,
            number=method.number,
            expiration_month=method.expiration_month,
            expiration_year=method.expiration_year,
            expires_at=timezone.now() + timedelta(seconds=settings.PAYOUT_CARD_RETENTION_SECONDS),
        )
    except cards.CardDataError as error:
        raise DomainError(error.message, pointer="/payment_method/number") from None
    return card, None


def payout_check(
    *, merchant_account: MerchantAccount, request: PayoutCreateRequest
) -> tuple[PaymentService, Buyer | None]:
    """Refuse what cannot be paid out (over the limit, no service that can pay out, an unknown buyer, a stored card
    that cannot be used) before anything is written: the service that pays it out and the buyer it names."""
    _limit_require(merchant_account=merchant_account, amount=request.amount, currency=request.currency)
    service = payout_service(
        merchant_account=merchant_account, currency=request.currency, payment_service_id=request.payment_service_id
    )
    buyer = buyer_named(
        merchant_account=merchant_account,
        buyer_id=request.buyer_id,
        buyer_external_identifier=request.buyer_external_identifier,
    )
    if isinstance(request.payment_method, PayoutStoredCard):
        payment_method_for_payment(
            merchant_account=merchant_account,
            id=request.payment_method.id,
            buyer_id=buyer.pk if buyer else None,
            pointer="/payment_method/id",
        )
    return service, buyer


def payout_create(
    *,
    merchant_account: MerchantAccount,
    request: PayoutCreateRequest,
    id: uuid.UUID | None = None,
    resumed: bool = False,
) -> Payout:
    """Pay `request.amount` out to the card; a refusal (limit, service, card, buyer) writes nothing. With `id` (an
    Idempotency-Key's reserved id) and `resumed`, a retry of a request that died finds the payout it made and settles
    it instead of making a second one."""
    if resumed and id is not None:
        existing = Payout.objects.filter(pk=id, merchant_account=merchant_account).first()
        if existing is not None:
            return payout_send(payout=existing) if existing.status == PayoutStatus.PENDING else existing
    service, buyer = payout_check(merchant_account=merchant_account, request=request)
    with transaction.atomic():
        card, stored = _card(merchant_account=merchant_account, method=request.payment_method, buyer=buyer)
        payout = Payout.objects.create(
            id=id or uuid.uuid4(),
            merchant_account=merchant_account,
            amount=request.amount,
            currency=request.currency,
            category=request.category,
            external_identifier=request.external_identifier,
            merchant=request.merchant,
            buyer=buyer,
            buyer_details=_buyer_details(buyer, request.guest_buyer),
            payment_service=service,
            payment_method=stored,
            **_card_fields(card),
        )
        _notify(payout)
    return payout_send(payout=payout)


def _recipient(payout: Payout) -> PayoutRecipient | None:
    billing = (payout.buyer_details or {}).get("billing_details") or {}
    if not billing:
        return None
    return PayoutRecipient(
        first_name=billing.get("first_name"), last_name=billing.get("last_name"), email=billing.get("email_address")
    )


def _merchant(payout: Payout) -> PayoutMerchantDetails | None:
    merchant = payout.merchant
    if not merchant:
        return None
    return PayoutMerchantDetails(
        name=merchant["name"],
        statement_descriptor=merchant.get("statement_descriptor"),
        merchant_category_code=merchant.get("merchant_category_code"),
        url=merchant.get("url"),
    )


def _ask(payout: Payout) -> ConnectorResult:
    """The processor's answer to the payout (FAILED when it could not be asked); `OutcomeUnknown` when it may have
    acted and did not say."""
    service = payout.payment_service
    payouts = _payouts_of(service)
    if payouts is None or payout.card is None:  # a processor removed since, or the card's data gone
        return no_answer(
            code="unavailable", misconfigured=True, description="The payout's processor or card is no longer there."
        )
    try:
        credentials = payment_service_connector_credentials(service=service)
    except CredentialsUnusable as exc:
        return no_answer(code="credentials", misconfigured=True, description=exc.message)
    try:
        card = vaulted_card_reveal(card=payout.card)
    except NotFound:  # kept past PAYOUT_CARD_RETENTION_SECONDS: only an operator can tell what the processor did
        return no_answer(code="card", misconfigured=False, description="The payout's card data is gone.")
    request = PayoutRequest(
        reference=str(payout.pk),
        amount=payout.amount,
        currency=payout.currency,
        card=card,
        category=payout.category,
        merchant=_merchant(payout),
        recipient=_recipient(payout),
    )
    deadline = time.monotonic() + settings.PAYMENT_ROUTING_SECONDS
    return payouts.pay_out(credentials=credentials, request=request, deadline=deadline)


def payout_send(*, payout: Payout) -> Payout:
    """Ask the processor for a pending payout and record its answer. Each ask is counted first, so a FAILED answer (the
    processor not reached) ends the payout only when no earlier ask could have reached it; otherwise, like no answer
    at all, the payout stays pending for recovery."""
    Payout.objects.filter(pk=payout.pk).update(attempts=F("attempts") + 1, updated_at=timezone.now())
    payout.refresh_from_db(fields=["attempts", "updated_at"])
    try:
        result = _ask(payout)
    except OutcomeUnknown:
        logger.warning("Payout %s: the processor gave no answer; it stays pending for recovery", payout.pk)
        return payout
    if result.outcome is Outcome.FAILED and payout.attempts > 1:
        logger.warning("Payout %s: the processor could not be asked again; it stays pending", payout.pk)
        return payout
    return _record(payout=payout, result=result)


@transaction.atomic
def _record(*, payout: Payout, result: ConnectorResult) -> Payout:
    """The processor's answer, recorded once: a payout already decided (by a racing ask) is left as it is. A card given
    once leaves the vault as soon as the payout is decided."""
    locked = Payout.objects.select_for_update().get(pk=payout.pk)
    if locked.status != PayoutStatus.PENDING:
        return locked
    locked.status = {
        Outcome.APPROVED: PayoutStatus.SUCCEEDED,
        Outcome.DECLINED: PayoutStatus.DECLINED,
    }.get(result.outcome, PayoutStatus.FAILED)
    locked.payment_service_payout_id = (result.processor_reference or "")[:200] or None
    if not result.approved:
        locked.error_code = result.error_code or (NO_ANSWER if result.outcome is Outcome.FAILED else None)
    locked.raw_response_code = result.raw_response_code
    locked.raw_response_description = (result.raw_response_description or "")[:255] or None
    if locked.payment_method_id is None and locked.card is not None:
        vaulted_card_delete(card=locked.card)
        locked.card = None
    locked.save()
    _notify(locked)
    if locked.status == PayoutStatus.SUCCEEDED:
        for hook in _succeeded_hooks:
            hook(locked)
    return locked


@dataclass(frozen=True)
class Recovery:
    """What one run of the recovery job did: payouts asked again, and how many of them are settled now."""

    asked: int
    settled: int


def payouts_recover_pending(*, now: datetime | None = None, batch_size: int = 100) -> Recovery:
    """Ask again, under the same reference, for the payouts left pending longer than PAYOUT_RECOVER_AFTER_SECONDS (a
    lost answer, a request that died, a processor still deciding): the processor answers what it did the first time,
    so each is settled with nothing paid twice. Run by the scheduled job `recover-pending-payouts`."""
    before = (now or timezone.now()) - timedelta(seconds=settings.PAYOUT_RECOVER_AFTER_SECONDS)
    pending = Payout.objects.filter(status=PayoutStatus.PENDING, updated_at__lt=before).order_by("updated_at")
    asked = settled = 0
    for payout in pending[:batch_size]:
        asked += 1
        try:
            if payout_send(payout=payout).status != PayoutStatus.PENDING:
                settled += 1
        except Exception:  # one payout's fault must not hold up the others; it is asked again next run
            logger.exception("Payout %s: recovery failed", payout.pk)
    return Recovery(asked=asked, settled=settled)


def payout_notified(event: ProcessorEvent) -> Matched:
    """What a processor's notification says became of a payout it paid out (`event.payout`), recorded once: only a
    payout of that service still pending moves (a decided payout keeps its processor's answer). Registered with
    `paymentservices.notifications` by the app; runs inside the notification's transaction. A payout that is not
    one of the service's is answered unmatched, so the operator sees it."""
    notified = event.payout
    if notified is None:
        return None
    try:
        key = uuid.UUID(notified.reference)
    except ValueError:
        return False  # a payout made elsewhere (the processor's dashboard): not one of ours
    payout = Payout.objects.filter(pk=key, payment_service=event.payment_service).first()
    if payout is None:
        return False
    if payout.status != PayoutStatus.PENDING:
        return True
    result = ConnectorResult(
        outcome=Outcome.APPROVED if notified.paid else Outcome.DECLINED,
        processor_reference=notified.processor_reference,
        error_code=None if notified.paid else "issuer_decline",
        raw_response_code=event.event_type[:64],
        raw_response_description=notified.reason,
    )
    _record(payout=payout, result=result)
    return True
