"""Which payment methods a checkout can offer: what this server can actually take for an amount and currency.

Upstream answers from the merchant's configured payment services and checkout rules. Here the configured
connector takes cards in every currency and country, an active service of a way the buyer approves at its processor
(PayPal) takes it in its currencies and countries, and the built-in gift card program takes its own cards in their
currency; there are no checkout rules (docs/transactions.md, "Payment options").
"""

from __future__ import annotations

from dataclasses import dataclass

from giftcards.selectors import gift_cards_can_pay
from payments.accounts.models import MerchantAccount
from paymentservices.catalogues import redirect_methods
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
GIFT_CARD = PaymentOption(
    method="gift-card", mode="gift-card", label="Gift card", can_store_payment_method=False, can_delay_capture=True
)


def _redirect_options() -> list[PaymentOption]:
    """The ways the buyer approves at a processor, as the registered processors take them: what their features say
    of storing the method and of a later capture."""
    return [
        PaymentOption(
            method=method,
            mode=processor.mode,
            label=processor.method_display_name,
            can_store_payment_method=processor.features.get("payment_method_tokenization", False),
            can_delay_capture=processor.features.get("delayed_capture", False),
        )
        for method, processor in redirect_methods().items()
    ]


def _service_takes(
    merchant_account: MerchantAccount, method: str, *, currency: str | None, country: str | None
) -> bool:
    """Whether an active service of the account takes a `method` payment in `currency` (from `country`), as routing
    would decide it; with no currency asked, no service can be said to take it."""
    if currency is None:
        return False
    try:
        route(merchant_account=merchant_account, currency=currency, country=country, method=method)
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
    """The methods a checkout of `amount` in `currency` can pay with, cards first. A card pays any amount; a way the
    buyer approves at a processor is offered where an active service of it takes the currency (and country); gift
    cards when the program holds a card that could pay in that currency; neither for nothing."""
    options = [CARD]
    if amount != 0:
        taken = (
            option
            for option in _redirect_options()
            if _service_takes(merchant_account, option.method, currency=currency, country=country)
        )
        options.extend(taken)
    if amount != 0 and gift_cards_can_pay(merchant_account=merchant_account, currency=currency):
        options.append(GIFT_CARD)
    return options
