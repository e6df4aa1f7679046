"""What a client asks a new transaction to be, typed: the one input of `transaction_create`.

The API's input serializer produces a `TransactionRequest`; so may anything else that creates transactions
(the demo seeder, tests). The request only names things (a buyer by id, a gift card by number and PIN, a
checkout session by id); `transaction_create` resolves and checks them.

A payment method is one of the `PaymentMethodRequest` classes. Each knows how to find the card it pays
with (`resolve`), so a new way to pay is one class here, its input serializer and its entry in the API's
method table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol
from uuid import UUID

from checkout.selectors import checkout_session_get
from payments.choices import PaymentIntent, PaymentSource
from payments.connectors import CardDetails
from payments.errors import DomainError
from payments.models import MerchantAccount, VaultedCard

MAX_GIFT_CARDS = 10


@dataclass(frozen=True)
class PaymentCard:
    """The card a payment method resolves to: clear details sent inline (to be sealed), or a vaulted card."""

    details: CardDetails | None = None
    vaulted: VaultedCard | None = None
    checkout_session_id: UUID | None = None


class PaymentMethodRequest(Protocol):
    """A way to name the payment method of a new transaction."""

    method: ClassVar[str]

    def resolve(self, *, merchant_account: MerchantAccount) -> PaymentCard:
        """The card to authorize; refuses (DomainError, pointing into the body) what cannot pay."""
        ...


@dataclass(frozen=True)
class CardRequest:
    """`{"method": "card", number, expiration_date, security_code}`: card details sent with the request."""

    method: ClassVar[str] = "card"
    number: str = field(repr=False)
    expiration_month: int
    expiration_year: int
    security_code: str | None = field(default=None, repr=False)

    def resolve(self, *, merchant_account: MerchantAccount) -> PaymentCard:
        details = CardDetails(
            number=self.number,
            expiration_month=self.expiration_month,
            expiration_year=self.expiration_year,
            security_code=self.security_code,
        )
        return PaymentCard(details=details)


@dataclass(frozen=True)
class CheckoutSessionRequest:
    """`{"method": "checkout-session", "id": ...}`: the card Secure Fields stored on the session."""

    method: ClassVar[str] = "checkout-session"
    session_id: UUID

    def resolve(self, *, merchant_account: MerchantAccount) -> PaymentCard:
        session = checkout_session_get(merchant_account=merchant_account, id=self.session_id)
        if session.card is None:
            raise DomainError("The checkout session has no card details yet.", pointer="/payment_method/id")
        return PaymentCard(vaulted=session.card, checkout_session_id=session.id)


@dataclass(frozen=True)
class GiftCardRequest:
    """One gift card of a split tender: `{number, pin, amount}` of a program card, or `{id, amount}` of a stored one."""

    amount: int
    id: UUID | None = None
    number: str | None = field(default=None, repr=False)
    pin: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class TransactionRequest:
    """A new transaction as asked: the amount, what pays it, and the order details kept with it."""

    amount: int
    currency: str
    intent: str = PaymentIntent.AUTHORIZE
    payment_method: PaymentMethodRequest | None = None
    gift_cards: tuple[GiftCardRequest, ...] = ()
    buyer_id: UUID | None = None
    buyer_external_identifier: str | None = None
    guest_buyer: dict[str, Any] | None = None
    country: str | None = None
    external_identifier: str | None = None
    metadata: dict[str, str] | None = None
    cart_items: list[dict[str, Any]] | None = None
    airline: dict[str, Any] | None = None
    payment_source: str = PaymentSource.ECOMMERCE
    merchant_initiated: bool = False
    is_subsequent_payment: bool = False
    account_funding_transaction: bool = False
