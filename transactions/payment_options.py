"""Which payment methods a checkout can offer: what this server can actually take for an amount and currency.

Upstream answers from the merchant's configured payment services and checkout rules. Here the configured
connector takes cards in every currency and country, an active PayPal service takes PayPal in its currencies and
countries, and the built-in gift card program takes its own cards in their currency; there are no checkout rules
(docs/transactions.md, "Payment options").
"""

from __future__ import annotations

from dataclasses import dataclass

from giftcards.selectors import gift_cards_can_pay
from payments.accounts.models import MerchantAccount
from paymentservices.routing import NoPaymentService, route


@dataclass(frozen=True)
class PaymentOption:
    """One way to pay a checkout can show (the upstream `PaymentOption`)."""

    method: str
    mode: str
    label: str
    # Whether a transaction paying this way can keep the method for later (`store: true`).
    can_store_payment_method: bool
    # Whether the money can be authorized now and captured later (`intent: authorize`).
    can_delay_capture: bool


# Labels are English whatever the locale: the server has no translations (docs/transactions.md).
CARD = PaymentOption(method="card", mode="card", label="Card", can_store_payment_method=True, can_delay_capture=True)
# The buyer approves at PayPal; it authorizes now and captures later; nothing is stored for later payments here.
PAYPAL = PaymentOption(
    method="paypal", mode="redirect", label="PayPal", can_store_payment_method=False, can_delay_capture=True
)
GIFT_CARD = PaymentOption(
    method="gift-card", mode="gift-card", label="Gift card", can_store_payment_method=False, can_delay_capture=True
)


def _paypal_takes(merchant_account: MerchantAccount, *, currency: str | None, country: str | None) -> bool:
    """Whether an active PayPal service of the account takes a payment in `currency` (from `country`), as routing
    would decide it; with no currency asked, no service can be said to take it."""
    if currency is None:
        return False
    try:
        route(merchant_account=merchant_account, currency=currency, country=country, method="paypal")
    except NoPaymentService:
        return False
    return True


def payment_options_list(
    *,
    merchant_account: MerchantAccount,
    amount: int | None = None,
    currency: str | None = None,
    country: str | None = None,
) -> list[PaymentOption]:
    """The methods a checkout of `amount` in `currency` can pay with, cards first. A card pays any amount; PayPal is
    offered where an active PayPal service takes the currency (and country); gift cards when the program holds a card
    that could pay in that currency; neither for nothing."""
    options = [CARD]
    if amount != 0 and _paypal_takes(merchant_account, currency=currency, country=country):
        options.append(PAYPAL)
    if amount != 0 and gift_cards_can_pay(merchant_account=merchant_account, currency=currency):
        options.append(GIFT_CARD)
    return options
