"""What a client asks a new transaction to be, typed: the one input of `transaction_create`.

The API's input serializer produces a `TransactionRequest`; so may anything else that creates transactions
(the demo seeder, tests). The request only names things (a buyer by id, a gift card by number and PIN, a
checkout session by id); `transaction_create` resolves and checks them.

A payment method is one of the `PaymentMethodRequest` classes. Each knows how to find the card it pays
with (`resolve`), so a new way to pay is one class here, its input serializer and its entry in the API's
method table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol
from uuid import UUID

from buyers.models import Buyer
from checkout.selectors import checkout_session_get
from digitalwallets.payments import wallet_token_open
from paymentmethods.models import PaymentMethod
from paymentmethods.selectors import payment_method_for_payment
from payments.accounts.models import MerchantAccount
from payments.bins.facts import CardFacts
from payments.connectors import CardDetails, PaymentDetails
from payments.errors import DomainError
from payments.vault import cards
from payments.vault.models import VaultedCard
from payments.vault.services import vaulted_card_facts
from payments.wallettokens import Wallet, WalletPayment

MAX_GIFT_CARDS = 10
# What a checkout session may declare for the transactions that pay with it.
SESSION_HINTS = ("intent", "payment_source", "country", "merchant_initiated", "is_subsequent_payment")


@dataclass(frozen=True)
class PaymentCard:
    """The card a payment method resolves to: clear details sent inline (to be sealed), or a vaulted card.

    A checkout session also brings what it declared for the transactions paying with it (`session_hints`: intent,
    payment source, country, and the merchant-initiated / subsequent-payment flags it set) and the billing postal
    code Secure Fields took with the card.
    """

    details: CardDetails | None = None
    vaulted: VaultedCard | None = None
    checkout_session_id: UUID | None = None
    session_hints: dict[str, Any] = field(default_factory=dict)
    postal_code: str | None = None
    # A stored payment method paying, and the security code the buyer typed for this payment (never stored)...
    payment_method: PaymentMethod | None = None
    security_code: str | None = field(default=None, repr=False)
    # ... or typed through Secure Fields: sealed in the vault until this payment's authorization consumes it.
    sealed_security_code_id: UUID | None = None
    # What the BIN table says of a card sent inline, looked up once here and kept by the vault when it seals it.
    facts: CardFacts | None = None
    # A digital wallet's decrypted token, when a wallet pays: `details` holds its card (or device) number.
    wallet: WalletPayment | None = None

    @property
    def country(self) -> str | None:
        """The card's issuing country, where the BIN table knows it."""
        if self.facts is not None:
            return self.facts.country
        return self.vaulted.country if self.vaulted is not None else None


class PaymentMethodRequest(Protocol):
    """A way to name the payment method of a new transaction."""

    method: ClassVar[str]

    @property
    def redirect_url(self) -> str | None:
        """Where the buyer returns after a 3-D Secure challenge on this server's page (docs/three-d-secure.md)."""
        ...

    def resolve(self, *, merchant_account: MerchantAccount, buyer: Buyer | None) -> PaymentCard:
        """The card to authorize (for `buyer`, when the transaction names one); refuses (DomainError, pointing into
        the body) what cannot pay."""
        ...


@dataclass(frozen=True)
class CardRequest:
    """`{"method": "card", number, expiration_date, security_code}`: card details sent with the request."""

    method: ClassVar[str] = "card"
    number: str = field(repr=False)
    expiration_month: int
    expiration_year: int
    security_code: str | None = field(default=None, repr=False)
    redirect_url: str | None = None

    def resolve(self, *, merchant_account: MerchantAccount, buyer: Buyer | None) -> PaymentCard:
        details = CardDetails(
            number=self.number,
            expiration_month=self.expiration_month,
            expiration_year=self.expiration_year,
            security_code=self.security_code,
        )
        return PaymentCard(details=details, facts=vaulted_card_facts(number=self.number))


@dataclass(frozen=True)
class CheckoutSessionRequest:
    """`{"method": "checkout-session", "id": ...}`: what Secure Fields left on the session, a card or a stored payment
    method (paid with as `StoredPaymentMethodRequest` pays, with the security code the buyer typed for it)."""

    method: ClassVar[str] = "checkout-session"
    session_id: UUID
    redirect_url: str | None = None

    def resolve(self, *, merchant_account: MerchantAccount, buyer: Buyer | None) -> PaymentCard:
        session = checkout_session_get(merchant_account=merchant_account, id=self.session_id)
        hints = {name: getattr(session, name) for name in SESSION_HINTS if getattr(session, name) is not None}
        if session.payment_method_id is not None:
            # Chosen in the buyer's browser: the method is checked here as a payment naming it by id is.
            method = payment_method_for_payment(
                merchant_account=merchant_account,
                id=session.payment_method_id,
                buyer_id=buyer.pk if buyer else None,
                pointer="/payment_method/id",
            )
            return PaymentCard(
                vaulted=method.card,
                payment_method=method,
                sealed_security_code_id=session.security_code_id,
                checkout_session_id=session.id,
                session_hints=hints,
                postal_code=session.postal_code,
            )
        if session.card is None:
            raise DomainError("The checkout session has no card details yet.", pointer="/payment_method/id")
        return PaymentCard(
            vaulted=session.card, checkout_session_id=session.id, session_hints=hints, postal_code=session.postal_code
        )


@dataclass(frozen=True)
class StoredPaymentMethodRequest:
    """`{"method": "id", "id": ..., "security_code"?}`: a buyer's stored payment method, with the security code the
    buyer typed when present (customer-initiated)."""

    method: ClassVar[str] = "id"
    id: UUID
    security_code: str | None = field(default=None, repr=False)
    redirect_url: str | None = None

    def resolve(self, *, merchant_account: MerchantAccount, buyer: Buyer | None) -> PaymentCard:
        pointer = "/payment_method/id"
        method = payment_method_for_payment(
            merchant_account=merchant_account, id=self.id, buyer_id=buyer.pk if buyer else None, pointer=pointer
        )
        if self.security_code is not None:
            try:
                cards.validate_security_code(self.security_code, method.card.scheme)
            except cards.CardDataError as error:
                raise DomainError(error.message, pointer="/payment_method/security_code") from None
        return PaymentCard(vaulted=method.card, payment_method=method, security_code=self.security_code)


@dataclass(frozen=True)
class WalletPaymentRequest:
    """`{"method": "applepay" | "googlepay", "token": ...}`: a wallet's token, opened with the account's wallet keys
    (`digitalwallets.payments`). Its card is the device's number (with the cryptogram the device made for this
    payment), or for Google Pay `PAN_ONLY` the card's own."""

    method: ClassVar[str]
    wallet: ClassVar[Wallet]
    token: str | Mapping[str, Any] = field(repr=False)
    redirect_url: str | None = None
    # The checkout whose wallet button the buyer pressed (an embed token's pinned session, never the body's), kept on
    # the transaction so that checkout's drop-in may read how a 3-D Secure challenge ended (`transactions.api.pinning`).
    checkout_session_id: UUID | None = None

    def resolve(self, *, merchant_account: MerchantAccount, buyer: Buyer | None) -> PaymentCard:
        payment = wallet_token_open(merchant_account=merchant_account, wallet=self.wallet, token=self.token)
        details = CardDetails(
            number=payment.number,
            expiration_month=payment.expiration_month,
            expiration_year=payment.expiration_year,
        )
        return PaymentCard(
            details=details,
            facts=vaulted_card_facts(number=payment.number),
            wallet=payment,
            checkout_session_id=self.checkout_session_id,
        )


@dataclass(frozen=True)
class ApplePayRequest(WalletPaymentRequest):
    method: ClassVar[str] = "applepay"
    wallet: ClassVar[Wallet] = Wallet.APPLE_PAY


@dataclass(frozen=True)
class GooglePayRequest(WalletPaymentRequest):
    method: ClassVar[str] = "googlepay"
    wallet: ClassVar[Wallet] = Wallet.GOOGLE_PAY


WALLET_REQUESTS: dict[str, type[WalletPaymentRequest]] = {
    request.method: request for request in (ApplePayRequest, GooglePayRequest)
}


@dataclass(frozen=True)
class RedirectPaymentRequest:
    """`{"method": "paypal", "redirect_url": ...}`: a payment the buyer approves on the processor's own pages (the
    upstream `RedirectPaymentMethodCreate`), then returns to `redirect_url` (docs/payment-services.md, "PayPal")."""

    method: str
    redirect_url: str
    # Upstream's own copies of the transaction's country and currency (checked against them when sent).
    country: str | None = None
    currency: str | None = None
    # The checkout the buyer chose the method in (an embed token's pinned session, never the body's), kept on the
    # transaction so that checkout's drop-in may read how the approval ended (`transactions.api.pinning`).
    checkout_session_id: UUID | None = None


@dataclass(frozen=True)
class GiftCardRequest:
    """One gift card of a split tender: `{number, pin, amount}` of a program card, or `{id, amount}` of a stored one."""

    amount: int
    id: UUID | None = None
    number: str | None = field(default=None, repr=False)
    pin: str | None = field(default=None, repr=False)


@dataclass(frozen=True, kw_only=True)
class TransactionRequest(PaymentDetails):
    """A new transaction as asked: the amount, what pays it, who the buyer is, and the `PaymentDetails` the processor
    is given as declared (the fields below are those the service resolves, checks or combines first)."""

    amount: int
    currency: str
    # None: not given, so a checkout session's hint or the default applies (authorize, ecommerce).
    intent: str | None = None
    payment_method: PaymentMethodRequest | RedirectPaymentRequest | None = None
    gift_cards: tuple[GiftCardRequest, ...] = ()
    buyer_id: UUID | None = None
    buyer_external_identifier: str | None = None
    guest_buyer: dict[str, Any] | None = None
    # One of the named buyer's stored shipping details; the transaction keeps a copy of them.
    shipping_details_id: UUID | None = None
    country: str | None = None
    external_identifier: str | None = None
    metadata: dict[str, str] | None = None
    payment_source: str | None = None
    # Keep the card for the buyer once its authorization succeeds (a new stored payment method).
    store: bool = False
    merchant_initiated: bool = False
    is_subsequent_payment: bool = False
    # Option sets by connector key (`stripe-card`); only those a connector of the payment's route reads are accepted.
    connection_options: dict[str, dict[str, Any]] | None = None
    # The payment service to send the card part to; None: routing picks (position, currencies, countries).
    payment_service_id: UUID | None = None
    # The buyer's own address, when the buyer's browser sent the request (an embed token).
    ip_address: str | None = None
    # The payment link this transaction pays (`paymentlinks.services.payment_link_pay`), kept on the transaction.
    payment_link_id: UUID | None = None
    # This server's own address as the client reached it (where the processor returns the buyer to, when
    # PUBLIC_BASE_URL is not set).
    server_base_url: str | None = None
