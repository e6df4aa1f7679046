"""Which payment methods a checkout can offer: what this server can actually take for an amount and currency.

Upstream answers from the merchant's configured payment services and checkout rules. Here the configured
connector takes cards in every currency and country, and the built-in gift card program takes its own cards
in their currency; there are no checkout rules (docs/transactions.md, "Payment options").
"""

from __future__ import annotations

from dataclasses import dataclass

from giftcards.selectors import gift_cards_can_pay
from payments.accounts.models import MerchantAccount


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
GIFT_CARD = PaymentOption(
    method="gift-card", mode="gift-card", label="Gift card", can_store_payment_method=False, can_delay_capture=True
)


def payment_options_list(
    *, merchant_account: MerchantAccount, amount: int | None = None, currency: str | None = None
) -> list[PaymentOption]:
    """The methods a checkout of `amount` in `currency` can pay with, cards first. A card pays any amount; gift
    cards are offered when the program holds a card that could pay in that currency, and never for nothing."""
    options = [CARD]
    if amount != 0 and gift_cards_can_pay(merchant_account=merchant_account, currency=currency):
        options.append(GIFT_CARD)
    return options
