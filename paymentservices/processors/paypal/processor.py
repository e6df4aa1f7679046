"""PayPal as a processor: the `paypal-paypal` definition (its fields and their rules, features) and its connector."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from paymentservices.processors.features import CARD_FEATURES
from paymentservices.processors.paypal import notifications
from paymentservices.processors.paypal.connector import PayPalConnector
from paymentservices.processors.paypal.disputes import PayPalDisputes
from paymentservices.processors.paypal.rules import CLIENT_ID, CLIENT_SECRET, WEBHOOK_ID
from paymentservices.processors.paypal.settlements import PayPalSettlements
from paymentservices.processors.seam import CredentialProblem, DefinitionField, ParsedNotification, Processor


class PayPalProcessor(Processor):
    id = "paypal-paypal"
    slug = "paypal"
    display_name = "PayPal"
    method = "paypal"
    mode = "redirect"
    method_display_name = "PayPal"
    method_long_display_name = None
    fields = (
        DefinitionField("client_id", "Client ID", required=True, secret=False, verifiable=True, rule=CLIENT_ID),
        DefinitionField(
            "client_secret", "Client secret", required=True, secret=True, verifiable=True, rule=CLIENT_SECRET
        ),
        DefinitionField("webhook_id", "Webhook ID", required=False, secret=False, rule=WEBHOOK_ID),
    )
    # Captures (full or partial), voids and refunds (full or partial) through Payments v2; the buyer approves at
    # PayPal, so no 3-D Secure of this server's applies, and nothing is stored for later payments yet. Its webhook
    # events are read (notifications.py), each verified by PayPal with the service's `webhook_id`.
    features: ClassVar[Mapping[str, bool]] = {**CARD_FEATURES, "webhooks": True}
    # Not a secret: PayPal is asked with it (and the app's credentials) whether it sent a notification.
    notification_secret_field = "webhook_id"  # noqa: S105 - a field name, not a secret
    # Its disputes are answered through its Customer Disputes API v1 (disputes.py).
    disputes = PayPalDisputes()
    # What it paid out and took in fees is read from its Transaction Search (settlements.py).
    settlements = PayPalSettlements()

    def connect(self, credentials: Mapping[str, str], deadline: float | None = None) -> PayPalConnector:
        return PayPalConnector(
            client_id=credentials.get("client_id", ""),
            client_secret=credentials.get("client_secret", ""),
            deadline=deadline,
        )

    def parse_notification(
        self, *, payload: bytes, headers: Mapping[str, str], secret: str, credentials: Mapping[str, str]
    ) -> ParsedNotification:
        return notifications.parse_notification(
            payload=payload, headers=headers, webhook_id=secret, credentials=credentials
        )

    def verify(self, credentials: Mapping[str, str]) -> CredentialProblem | None:
        """Ask PayPal for an access token with the app's credentials; unreachable PayPal raises."""
        return self.connect(credentials).verify()
