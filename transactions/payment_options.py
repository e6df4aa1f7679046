"""Which payment methods a checkout can offer: what this server can actually take for an amount and currency.

Upstream answers from the merchant's configured payment services and checkout rules. Here the configured
connector takes cards in every currency and country, an active service of a way the buyer approves at its processor
(PayPal) takes it in its currencies and countries, Apple Pay and Google Pay are taken where the account registered the
wallet and a service whose processor takes network tokens takes the currency and country, and the built-in gift card
program takes its own cards in their
currency; there are no checkout rules (docs/transactions.md, "Payment options").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from digitalwallets.models import DigitalWallet
from digitalwallets.networks import WALLET_SCHEMES
from digitalwallets.selectors import digital_wallets_paying
from giftcards.selectors import gift_cards_can_pay
from payments.accounts.models import MerchantAccount
from paymentservices.catalogues import redirect_methods, schemes_taken
from paymentservices.processors import processor_get
from paymentservices.routing import NoPaymentService, Route, route


@dataclass(frozen=True)
class WalletContext:
    """What a wallet's payment sheet needs from the server (upstream's `WalletPaymentOptionContext`): the name the
    buyer sees and the card schemes both the wallet and a processor it routes to take. No gateway: the server opens
    the tokens itself (docs/digital-wallets.md, "The payment option's context")."""

    merchant_name: str
    supported_schemes: tuple[str, ...]


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
    context: WalletContext | None = None


# Labels are English whatever the locale: the server has no translations (docs/transactions.md).
CARD = PaymentOption(method="card", mode="card", label="Card", can_store_payment_method=True, can_delay_capture=True)
# A wallet's token pays once and is not kept; its card authorizes now and captures later like a typed one.
APPLE_PAY = PaymentOption(
    method="applepay", mode="applepay", label="Apple Pay", can_store_payment_method=False, can_delay_capture=True
)
GOOGLE_PAY = PaymentOption(
    method="googlepay", mode="googlepay", label="Google Pay", can_store_payment_method=False, can_delay_capture=True
)
# Each wallet's option by the provider of the digital wallet that opens its tokens.
WALLET_OPTIONS = {"apple": APPLE_PAY, "google": GOOGLE_PAY}
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


def _wallets_taken(
    merchant_account: MerchantAccount, *, currency: str | None, country: str | None
) -> list[PaymentOption]:
    """The options of the wallets that can pay in `currency` (from `country`): registered with the merchant ID their
    tokens are bound to, and a service whose processor takes a network token routed to, as a payment would be; each
    with the schemes the wallet and those processors both take."""
    paying = digital_wallets_paying(merchant_account=merchant_account) if currency is not None else {}
    if not paying:  # no wallet, no question to routing
        return []
    try:
        routed = route(merchant_account=merchant_account, currency=str(currency), country=country, network_token=True)
    except NoPaymentService:
        return []
    taken = _schemes_routed(routed)
    return [
        replace(option, context=_wallet_context(paying[provider], taken))
        for provider, option in WALLET_OPTIONS.items()
        if provider in paying and taken & WALLET_SCHEMES[provider]
    ]


def _schemes_routed(routed: Route) -> frozenset[str]:
    """The card schemes some service of the route takes, as its processor declares them."""
    processors = (processor_get(service.definition_id) for service in routed.services)
    return frozenset().union(*(schemes_taken(processor) for processor in processors if processor is not None))


def _wallet_context(wallet: DigitalWallet, taken: frozenset[str]) -> WalletContext:
    return WalletContext(
        merchant_name=wallet.merchant_display_name or wallet.merchant_name,
        supported_schemes=tuple(sorted(taken & WALLET_SCHEMES[wallet.provider])),
    )


def payment_options_list(
    *,
    merchant_account: MerchantAccount,
    amount: int | None = None,
    currency: str | None = None,
    country: str | None = None,
) -> list[PaymentOption]:
    """The methods a checkout of `amount` in `currency` can pay with, cards first. A card pays any amount; Apple Pay
    and Google Pay where `_wallets_taken` says; a way the buyer approves at a processor is offered where an active
    service of it takes the currency (and country); gift cards when the program holds a card that could pay in that
    currency; none of these for nothing."""
    options = [CARD]
    if amount != 0:
        options += _wallets_taken(merchant_account, currency=currency, country=country)
        taken = (
            option
            for option in _redirect_options()
            if _service_takes(merchant_account, option.method, currency=currency, country=country)
        )
        options.extend(taken)
    if amount != 0 and gift_cards_can_pay(merchant_account=merchant_account, currency=currency):
        options.append(GIFT_CARD)
    return options
