"""The card schemes each wallet carries, in upstream's scheme ids (`payments.vault.cards`): a wallet's payment option
offers those of them its processors take."""

from __future__ import annotations

from payments.vault.cards import AMEX, DISCOVER, JCB, MAESTRO, MASTERCARD, UNIONPAY, VISA

WALLET_SCHEMES: dict[str, frozenset[str]] = {
    # Apple Pay JS `ApplePayPaymentRequest.supportedNetworks`: amex, chinaUnionPay, discover, jcb, maestro,
    # masterCard, visa among those the vault tells apart (developer.apple.com, "supportedNetworks").
    "apple": frozenset({AMEX, UNIONPAY, DISCOVER, JCB, MAESTRO, MASTERCARD, VISA}),
    # Google Pay API `CardParameters.allowedCardNetworks`: AMEX, DISCOVER, JCB, MAESTRO, MASTERCARD, VISA among those
    # the vault tells apart (developers.google.com/pay/api/web/reference/request-objects, "CardParameters").
    "google": frozenset({AMEX, DISCOVER, JCB, MAESTRO, MASTERCARD, VISA}),
}
