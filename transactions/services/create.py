"""A new transaction: resolve and check what the request names, open it (step 1), authorize (step 2), record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils import timezone

from buyers.access import UNRESTRICTED, BuyerAccess
from buyers.models import Buyer
from buyers.selectors import buyer_named, shipping_details_get
from buyers.services import SHIPPING_DETAILS_FIELDS
from digitalwallets.payments import WalletTokenNotAccepted
from giftcards.errors import GiftCardError
from giftcards.selectors import issued_card_for_payment
from giftcards.services import issued_card_redeem
from paymentmethods.services import (
    CardToStore,
    payment_method_record_use,
)
from payments.accounts.models import MerchantAccount
from payments.choices import PaymentIntent, PaymentSource
from payments.connectors import (
    CardDetails,
    NetworkToken,
)
from payments.errors import DomainError, NotFound
from payments.vault.models import VaultedCard
from payments.vault.services import vaulted_card_reveal, vaulted_card_store, vaulted_security_code_consume
from payments.wallettokens import AuthMethod, ReplayedToken, WalletPayment, replay_digest
from paymentservices.routing import authorize_routed, connection_options_keys, route
from paymentservices.tokens import payment_service_token_revoke, payment_service_tokens_usable
from transactions.details import payment_details_columns
from transactions.models import (
    GiftCardRedemption,
    RedemptionStatus,
    Transaction,
)
from transactions.related import DISPUTES, REDEMPTIONS, related_known_empty
from transactions.requests import (
    MAX_GIFT_CARDS,
    GiftCardRequest,
    PaymentCard,
    RedirectPaymentRequest,
    StoredPaymentMethodRequest,
    TransactionRequest,
)
from transactions.services.authentication import authentication_record, payment_authentication
from transactions.services.authorization import (
    record_authorization,
    record_failover,
    settle_gift_cards_only,
)
from transactions.services.recovery import transaction_sync_or_as_is
from transactions.services.redirects import redirect_payment_create
from transactions.services.state import (
    Actor,
    GiftCardCharge,
    authorization_request,
    check_connection_options,
    record_event,
    redemption_reference,
    set_buyer,
)

# A card sent inline is kept (sealed, without its security code) while its authorization can be captured.
CARD_RETENTION = timedelta(days=7)


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


def _set_card(txn: Transaction, vaulted: VaultedCard) -> None:
    txn.vaulted_card = vaulted
    txn.method = "card"
    txn.card_scheme = vaulted.scheme
    txn.card_bin = vaulted.bin
    txn.card_last4 = vaulted.last4
    txn.card_expiration_date = vaulted.expiration_date
    txn.card_fingerprint = vaulted.fingerprint
    txn.card_type = vaulted.card_type
    txn.card_country = vaulted.country
    txn.card_issuer_name = vaulted.issuer_name


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
                card=card, amount=charge.amount, reference=redemption_reference(redemption), currency=txn.currency
            )
        except GiftCardError as exc:
            raise type(exc)(exc.message, pointer=f"/gift_cards/{index}") from exc
        redemption.status = RedemptionStatus.SUCCEEDED
        redemption.save(update_fields=["status", "updated_at"])
        record_event(
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
            facts=card.facts if card is not None else None,
        )
    elif vaulted is not None:
        details = vaulted_card_reveal(card=vaulted, consume_security_code=True)
        typed = _typed_security_code(card) if card is not None else None
        if typed is not None:
            details = replace(details, security_code=typed)
    if vaulted is not None:
        _set_card(txn, vaulted)
        if card is not None and card.wallet is not None:
            txn.method = card.wallet.wallet  # the wallet is the method; its device number is the card
    elif gift_cards:
        txn.method = "gift-card"
    txn.payment_method = card.payment_method if card is not None else None
    txn.save(force_insert=True)
    if txn.payment_method is not None:
        payment_method_record_use(method=txn.payment_method, merchant_initiated=txn.merchant_initiated)
    record_event(txn, name="transaction_created", actor=actor, from_status=None, amount=txn.amount)
    _redeem(txn, gift_cards, actor)
    return details


def _typed_security_code(card: PaymentCard) -> str | None:
    """The code the buyer typed for this payment of a stored card: sent with the request, or through Secure Fields
    (sealed until now: read once and deleted, at this first authorization attempt)."""
    if card.sealed_security_code_id is not None:
        return vaulted_security_code_consume(code_id=card.sealed_security_code_id)
    return card.security_code


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
            return transaction_sync_or_as_is(txn=earlier, actor=actor, abandoned=True)
    if isinstance(request.payment_method, RedirectPaymentRequest):
        return redirect_payment_create(
            merchant_account=merchant_account,
            actor=actor,
            request=request,
            method=request.payment_method,
            id=id,
            access=access,
        )
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
        buyer = card.payment_method.buyer  # a stored method pays for its own buyer (none, for a method of none)
    shipping_details = _shipping_details(merchant_account, buyer, request.shipping_details_id)
    _check_tender(amount=request.amount, has_card=card is not None, gift_cards=gift_cards)
    _check_store(request, card=card, buyer=buyer)
    wallet = card.wallet if card is not None else None
    if wallet is not None:
        _check_wallet_payment(
            wallet, amount=request.amount - sum(charge.amount for charge in gift_cards), currency=request.currency
        )
    # The services that keep the stored card (their tokens are sent instead of it): routing tries them first.
    tokens = payment_service_tokens_usable(method=card.payment_method if card else None)
    # Where the card part may go, in order (a 400 naming why when nowhere): decided before anything is written.
    routed = (
        route(
            merchant_account=merchant_account,
            currency=request.currency,
            # The payment's country, else the session's, else the card's issuing country (docs/card-details.md).
            country=request.country or (card.session_hints.get("country") or card.country if card else None),
            payment_service_id=request.payment_service_id,
            prefer=frozenset(tokens),
            network_token=_network_token(wallet) is not None,
        )
        if card is not None
        else None
    )
    if request.connection_options:
        check_connection_options(
            request.connection_options, connection_options_keys(routed) if routed is not None else frozenset()
        )
    hints = card.session_hints if card else {}  # what a checkout session declared, where the request is silent
    txn = Transaction(
        **payment_details_columns(request),
        merchant_account=merchant_account,
        amount=request.amount,
        currency=request.currency,
        intent=request.intent or hints.get("intent") or PaymentIntent.AUTHORIZE,
        country=request.country or hints.get("country"),
        external_identifier=request.external_identifier,
        metadata=request.metadata,
        checkout_session_id=card.checkout_session_id if card else None,
        payment_link_id=request.payment_link_id,
        payment_source=request.payment_source or hints.get("payment_source") or PaymentSource.ECOMMERCE,
        # `false` is what every request sends when it says nothing (the SDK's default): a session's `true` stands.
        merchant_initiated=request.merchant_initiated or hints.get("merchant_initiated", False),
        is_subsequent_payment=request.is_subsequent_payment or hints.get("is_subsequent_payment", False),
        connection_options=request.connection_options,
        ip_address=request.ip_address,
    )
    if id is not None:
        txn.pk = id
    set_buyer(txn, buyer=buyer, guest_buyer=request.guest_buyer)
    if routed is not None:
        txn.payment_service = routed.first  # the first attempt's, committed with the row before it is asked
    if card is not None and card.payment_method is not None and txn.merchant_initiated:
        # A stored method's later merchant-initiated payment names the customer-initiated one it follows.
        txn.previous_scheme_transaction_id = (
            txn.previous_scheme_transaction_id or card.payment_method.scheme_transaction_id
        )
    if shipping_details is not None:
        txn.shipping_details = shipping_details
    if wallet is not None:
        txn.wallet_replay_digest = replay_digest(wallet)  # unique: written with the row, or the row is refused
    authentication = payment_authentication(txn, request=request, card=card, routed=routed)
    try:
        clear_card = _open(txn, actor=actor, card=card, gift_cards=gift_cards)
    except IntegrityError:
        # The earlier attempt is still running after all and made the row first: answer with it.
        earlier = Transaction.objects.filter(merchant_account=merchant_account, pk=txn.pk).first()
        if id is not None and earlier is not None:
            return transaction_sync_or_as_is(txn=earlier, actor=actor)
        if _token_used(txn):  # another request paid with this wallet token first: nothing of this one is written
            raise WalletTokenNotAccepted(ReplayedToken(_TOKEN_USED)) from None
        raise
    if clear_card is None:
        return settle_gift_cards_only(txn, actor=actor)
    card_amount = request.amount - sum(charge.amount for charge in gift_cards)
    if authentication is not None:  # refused or waiting for the buyer: no processor is asked now
        ended = authentication_record(
            txn, authentication=authentication, actor=actor, card_amount=card_amount, request=request
        )
        if ended is not None:
            return ended
    postal_code = card.postal_code if card else None
    if routed is None:  # a card part is always routed above; kept explicit for the type checker
        raise RuntimeError("A card payment reached its authorization without a route.")
    service, result = authorize_routed(
        route=routed,
        request=replace(
            authorization_request(txn, card=clear_card, amount=card_amount, billing_postal_code=postal_code),
            network_token=_network_token(wallet),
        ),
        next_attempt=lambda failed, answer, following: record_failover(
            txn, failed=failed, result=answer, following=following, actor=actor
        ),
        tokens=tokens,
    )
    if result.token_revoked and card is not None and card.payment_method is not None:
        payment_service_token_revoke(
            method=card.payment_method, service=service, reason=result.raw_response_description
        )
    keep = _card_to_keep(request, card=card, clear_card=clear_card)
    txn = record_authorization(
        txn,
        result=result,
        card_amount=card_amount,
        actor=actor,
        keep=keep,
        service=service,
        redirect_url=request.payment_method.redirect_url if request.payment_method is not None else None,
    )
    return _known_as_made(txn, with_redemptions=bool(gift_cards))


def _known_as_made(txn: Transaction, *, with_redemptions: bool) -> Transaction:
    """Mark what `txn`, made by this very request, cannot have yet: its answer reads them, and need not ask the
    database. No disputes: a dispute reaches this server from the processor, about a payment it holds, and this one
    was recorded a moment ago. No gift card redemptions, when none were asked for."""
    related_known_empty(txn, DISPUTES, *(() if with_redemptions else (REDEMPTIONS,)))
    return txn


_TOKEN_USED = "This wallet token has already been used for a payment."  # noqa: S105 - a message


def _check_wallet_payment(wallet: WalletPayment, *, amount: int, currency: str) -> None:
    """A wallet token pays once, and an Apple Pay token only the amount and currency the buyer saw on its sheet (the
    card part of the payment). Checked before anything is written; the unique digest settles a race."""
    if Transaction.objects.filter(wallet_replay_digest=replay_digest(wallet)).exists():
        raise WalletTokenNotAccepted(ReplayedToken(_TOKEN_USED))
    if wallet.currency is not None and wallet.currency != currency:
        raise DomainError(
            f"The wallet token is for a payment in {wallet.currency}, not {currency}.", pointer="/payment_method/token"
        )
    if wallet.amount is not None and wallet.amount != amount:
        raise DomainError(
            f"The wallet token is for an amount of {wallet.amount}, and the card part of this payment is {amount}.",
            pointer="/payment_method/token",
        )


def _token_used(txn: Transaction) -> bool:
    digest = txn.wallet_replay_digest
    return digest is not None and Transaction.objects.filter(wallet_replay_digest=digest).exists()


def _network_token(wallet: WalletPayment | None) -> NetworkToken | None:
    """A device token and its cryptogram, sent as a network token; None for a card (Google Pay `PAN_ONLY` is one)."""
    if wallet is None or wallet.auth_method is not AuthMethod.CRYPTOGRAM_3DS or wallet.cryptogram is None:
        return None
    return NetworkToken(wallet=str(wallet.wallet), cryptogram=wallet.cryptogram, eci=wallet.eci)


def _check_store(request: TransactionRequest, *, card: PaymentCard | None, buyer: Buyer | None) -> None:
    """`store: true` keeps a card for a buyer: it needs both (a stored method paying is kept already)."""
    if not request.store:
        return
    if card is None:
        raise DomainError("store: true keeps a card, and this transaction pays with gift cards only.", pointer="/store")
    if card.wallet is not None:
        raise DomainError(
            "store: true keeps a card, and a wallet's token pays once: the wallet pays again with a new token.",
            pointer="/store",
        )
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
