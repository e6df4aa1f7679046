"""The payment service definitions this server ships: what each needs (its fields), what it supports, and the
connector it maps to. Definitions are code, not rows: a merchant account's services are made from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pycountry

from payments.connectors.base import PaymentConnector
from paymentservices.connectors import ParsedNotification, adyen_card, mock_card, stripe_card
from paymentservices.connectors.fields import IDENTIFIER, FieldRule

MOCK_CARD = "mock-card"
STRIPE_CARD = "stripe-card"
ADYEN_CARD = "adyen-card"


@dataclass(frozen=True)
class DefinitionField:
    """One credential or setting a service of the definition takes. A `secret` one is sealed and never shown. `rule`
    is the one shape its value may have, checked on create, update and verify, and again before a connector is built
    (a field that declares none is an identifier)."""

    key: str
    display_name: str
    required: bool
    secret: bool
    format: str = "text"
    # Whether `POST /payment-services/verify` can check it with the processor.
    verifiable: bool = False
    rule: FieldRule = IDENTIFIER


@dataclass(frozen=True)
class Definition:
    """A kind of payment service: a processor and the way of paying it takes."""

    id: str
    display_name: str
    fields: tuple[DefinitionField, ...]
    supported_features: Mapping[str, bool]
    # Builds the connector for a service's credentials ({key: clear value}, and `deadline=`: the `time.monotonic()`
    # past which its calls must not wait); checks credentials with the processor.
    connector: Callable[..., PaymentConnector]
    verify_credentials: Callable[[Mapping[str, str]], Any]
    # The built-in sandbox: refused in production unless SANDBOX_PAYMENTS (paymentservices.sandbox).
    sandbox: bool = False
    # Notifications the processor sends to the service's `webhook_url`: verified with this field's secret by
    # `parse_notification(payload=..., headers=..., secret=...)`.
    webhook_secret_field: str | None = None
    parse_notification: Callable[..., ParsedNotification] | None = None
    method: str = "card"
    mode: str = "card"
    icon_url: str | None = None
    supported_integration_clients: tuple[str, ...] = ("web",)
    reporting_fields: tuple[DefinitionField, ...] = field(default=())

    @property
    def supported_currencies(self) -> list[str]:
        return all_currencies()

    @property
    def supported_countries(self) -> list[str]:
        return all_countries()

    def field_named(self, key: str) -> DefinitionField | None:
        return next((item for item in self.fields if item.key == key), None)


@cache
def all_currencies() -> list[str]:
    return sorted(currency.alpha_3 for currency in pycountry.currencies)


@cache
def all_countries() -> list[str]:
    return sorted(country.alpha_2 for country in pycountry.countries)


_CARD_FEATURES = {
    "delayed_capture": True,
    "partial_capture": True,
    "void": True,
    "refunds": True,
    "partial_refunds": True,
    "transaction_sync": True,
    "network_tokens": False,
    "payment_method_tokenization": False,
    "three_d_secure_hosted": False,
    "three_d_secure_pass_through": False,
}

DEFINITIONS: dict[str, Definition] = {
    MOCK_CARD: Definition(
        id=MOCK_CARD,
        display_name="Mock card (sandbox)",
        # Upstream's simulator is set up with a merchant ID of the merchant's choosing that nothing reads.
        fields=(DefinitionField("merchant_id", "Merchant ID", required=True, secret=False),),
        supported_features={**_CARD_FEATURES, "three_d_secure_pass_through": True, "webhooks": False},
        connector=mock_card.connector,
        verify_credentials=mock_card.verify_credentials,
        sandbox=True,
    ),
    STRIPE_CARD: Definition(
        id=STRIPE_CARD,
        display_name="Stripe",
        fields=(
            DefinitionField(
                "secret_key", "Secret key", required=True, secret=True, verifiable=True, rule=stripe_card.SECRET_KEY
            ),
            DefinitionField(
                "webhook_secret",
                "Webhook signing secret",
                required=False,
                secret=True,
                rule=stripe_card.WEBHOOK_SECRET,
            ),
            # Public by design: Stripe.js is loaded with it on the page where the buyer completes Stripe's own 3-D
            # Secure (docs/three-d-secure.md); without it such a payment is declined.
            DefinitionField(
                "publishable_key", "Publishable key", required=False, secret=False, rule=stripe_card.PUBLISHABLE_KEY
            ),
        ),
        supported_features={**_CARD_FEATURES, "webhooks": True},
        connector=stripe_card.connector,
        verify_credentials=stripe_card.verify_credentials,
        webhook_secret_field="webhook_secret",  # noqa: S106 - a field name, not a secret
        parse_notification=stripe_card.parse_notification,
    ),
    ADYEN_CARD: Definition(
        id=ADYEN_CARD,
        display_name="Adyen",
        fields=(
            DefinitionField("api_key", "API key", required=True, secret=True, verifiable=True, rule=adyen_card.API_KEY),
            DefinitionField(
                "merchant_account",
                "Merchant account",
                required=True,
                secret=False,
                verifiable=True,
                rule=adyen_card.MERCHANT_ACCOUNT,
            ),
            # Set for a live account (Adyen's "live URL prefix"); left out, the service uses Adyen's test platform.
            DefinitionField(
                "live_url_prefix", "Live URL prefix", required=False, secret=False, rule=adyen_card.LIVE_URL_PREFIX
            ),
            DefinitionField(
                "hmac_key", "HMAC key (notifications)", required=False, secret=True, rule=adyen_card.HMAC_KEY
            ),
        ),
        # Adyen's 3-D Secure and redirect flows are not run yet: a payment asking for them is declined by name.
        supported_features={**_CARD_FEATURES, "transaction_sync": False, "webhooks": True},
        connector=adyen_card.connector,
        verify_credentials=adyen_card.verify_credentials,
        webhook_secret_field="hmac_key",  # noqa: S106 - a field name, not a secret
        parse_notification=adyen_card.parse_notification,
    ),
}


def definition_get(definition_id: str) -> Definition | None:
    return DEFINITIONS.get(definition_id)
