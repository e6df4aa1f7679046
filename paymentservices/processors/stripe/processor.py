"""Stripe as a processor: the `stripe-card` definition (its fields and their rules, features), its connector, its
notifications and the page where the buyer runs Stripe's own 3-D Secure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar
from urllib.parse import quote

from paymentservices.processors.features import CARD_FEATURES
from paymentservices.processors.fields import FieldRule
from paymentservices.processors.seam import CredentialProblem, DefinitionField, ParsedNotification, Processor
from paymentservices.processors.stripe import notifications
from paymentservices.processors.stripe.connector import StripeConnector
from paymentservices.processors.stripe.disputes import StripeDisputes
from paymentservices.processors.stripe.settlements import StripeSettlements
from paymentservices.processors.stripe.tokens import StripeTokens


# The fields' shapes, as Stripe's "API keys" page and its webhook docs give the keys:
# a prefix naming the kind and mode, then ASCII letters and digits (underscores let through); bounded.
def _key(prefixes: str, what: str, example: str) -> FieldRule:
    """A Stripe key's rule: its prefix (`prefixes`, a pattern naming the kind and mode), then ASCII letters and digits
    (underscores let through); bounded. `what` names it and its prefixes in words."""
    return FieldRule(rf"{prefixes}[A-Za-z0-9_]+", 255, f"is a Stripe {what}, then ASCII letters and digits", example)


SECRET_KEY = _key(
    r"(?:sk|rk)_(?:test|live)_",
    "secret key: sk_test_ or sk_live_ (rk_test_ or rk_live_ for a restricted key)",
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
)
PUBLISHABLE_KEY = _key(
    r"pk_(?:test|live)_", "publishable key: pk_test_ or pk_live_", "pk_test_TYooMQauvdEDq54NiTphI7jx"
)
WEBHOOK_SECRET = _key("whsec_", "webhook signing secret: whsec_", "whsec_5f8d3e3b1c4a4e0f9a7b6c5d4e3f2a1b")


class StripeProcessor(Processor):
    id = "stripe-card"
    slug = "stripe"
    settlements = StripeSettlements()
    disputes = StripeDisputes()
    tokens = StripeTokens()
    display_name = "Stripe"
    fields = (
        DefinitionField("secret_key", "Secret key", required=True, secret=True, verifiable=True, rule=SECRET_KEY),
        DefinitionField("webhook_secret", "Webhook signing secret", required=False, secret=True, rule=WEBHOOK_SECRET),
        # Public by design: Stripe.js is loaded with it on the page where the buyer completes Stripe's own 3-D
        # Secure (docs/three-d-secure.md); without it such a payment is declined.
        DefinitionField("publishable_key", "Publishable key", required=False, secret=False, rule=PUBLISHABLE_KEY),
    )
    # One capture per authorization and no increments: Stripe's multicapture and incremental authorization are
    # features the test double (localstripe) does not have, so nothing here could show them working.
    features: ClassVar[Mapping[str, bool]] = {
        **CARD_FEATURES,
        "webhooks": True,
        "payment_method_tokenization": True,
    }
    notification_secret_field = "webhook_secret"  # noqa: S105 - a field name, not a secret
    buyer_page = "stripe/three_d_secure.html"

    def connect(self, credentials: Mapping[str, str], deadline: float | None = None) -> StripeConnector:
        return StripeConnector(
            secret_key=credentials["secret_key"], publishable_key=credentials.get("publishable_key"), deadline=deadline
        )

    def dashboard_url(self, *, reference: str, fields: Mapping[str, str]) -> str | None:
        """The payment in Stripe's Dashboard (https://docs.stripe.com/dashboard/basics): under `/test/` when the
        service's publishable key is a test one; the secret key that would say so is sealed, so without a publishable
        key the live path is linked."""
        mode = "test/" if fields.get("publishable_key", "").startswith("pk_test_") else ""
        return f"https://dashboard.stripe.com/{mode}payments/{quote(reference, safe='')}"

    def verify(self, credentials: Mapping[str, str]) -> CredentialProblem | None:
        """Check the secret key with Stripe (the fields' shapes were checked by their rules before); unreachable
        Stripe raises `stripe.StripeError`."""
        return StripeConnector(secret_key=credentials["secret_key"]).verify()

    def parse_notification(
        self, *, payload: bytes, headers: Mapping[str, str], secret: str, credentials: Mapping[str, str]
    ) -> ParsedNotification:
        return notifications.parse_notification(payload=payload, headers=headers, secret=secret)
