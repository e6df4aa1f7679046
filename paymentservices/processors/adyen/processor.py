"""Adyen as a processor: the `adyen-card` definition (its fields and their rules, features), its connector, its
notifications and the download of the reports they announce."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar
from urllib.parse import urlencode

from paymentservices.processors.adyen import notifications
from paymentservices.processors.adyen.connector import AdyenConnector
from paymentservices.processors.adyen.disputes import AdyenDisputes
from paymentservices.processors.adyen.payouts import AdyenPayouts
from paymentservices.processors.adyen.rules import API_KEY, HMAC_KEY, LIVE_URL_PREFIX, MERCHANT_ACCOUNT, REPORT_API_KEY
from paymentservices.processors.adyen.settlements import AdyenSettlements
from paymentservices.processors.adyen.tokens import AdyenTokens
from paymentservices.processors.features import CARD_FEATURES
from paymentservices.processors.seam import CredentialProblem, DefinitionField, ParsedNotification, Processor


class AdyenProcessor(Processor):
    id = "adyen-card"
    slug = "adyen"
    settlements = AdyenSettlements()
    # Instant card payouts through its Payout API (payouts.py).
    payouts = AdyenPayouts()
    disputes = AdyenDisputes()
    tokens = AdyenTokens()
    display_name = "Adyen"
    fields = (
        DefinitionField("api_key", "API key", required=True, secret=True, verifiable=True, rule=API_KEY),
        DefinitionField(
            "merchant_account", "Merchant account", required=True, secret=False, verifiable=True, rule=MERCHANT_ACCOUNT
        ),
        # Set for a live account (Adyen's "live URL prefix"); left out, the service uses Adyen's test platform.
        DefinitionField("live_url_prefix", "Live URL prefix", required=False, secret=False, rule=LIVE_URL_PREFIX),
        DefinitionField("hmac_key", "HMAC key (notifications)", required=False, secret=True, rule=HMAC_KEY),
        # Adyen's tokenization webhook has a key of its own: set, its `recurring.token.disabled` revokes our token.
        DefinitionField(
            "tokenization_hmac_key",
            "HMAC key (tokenization notifications)",
            required=False,
            secret=True,
            rule=HMAC_KEY,
        ),
        # The report user's key: set, the settlement details reports Adyen announces (REPORT_AVAILABLE) are fetched
        # and ingested (docs/reconciliation.md).
        DefinitionField(
            "report_api_key",
            "Report user API key (settlement reports)",
            required=False,
            secret=True,
            rule=REPORT_API_KEY,
        ),
    )
    # Adyen's 3-D Secure and redirect flows are not run yet: a payment asking for them is declined by name.
    # Several captures: Adyen's multiple partial captures (each a `/captures` call on the payment); increments: its
    # `/amountUpdates`.
    features: ClassVar[Mapping[str, bool]] = {
        **CARD_FEATURES,
        "transaction_sync": False,
        "webhooks": True,
        "multiple_captures": True,
        "incremental_authorization": True,
        "payouts": True,
        "payment_method_tokenization": True,
        "network_tokens": True,
    }
    # A decrypted wallet token goes as Adyen's `networkToken` payment method with its cryptogram (connector.py).
    network_tokens = True
    notification_secret_field = "hmac_key"  # noqa: S105 - a field name, not a secret

    def connect(self, credentials: Mapping[str, str], deadline: float | None = None) -> AdyenConnector:
        return AdyenConnector(
            api_key=credentials.get("api_key", ""),
            merchant_account=credentials.get("merchant_account", ""),
            live_url_prefix=credentials.get("live_url_prefix") or None,
            deadline=deadline,
        )

    def dashboard_url(self, *, reference: str, fields: Mapping[str, str]) -> str | None:
        """The payment in Adyen's Customer Area, by its PSP reference: the live area when the service has a live URL
        prefix, the test area otherwise (as the connector picks its platform)."""
        area = "ca-live" if fields.get("live_url_prefix") else "ca-test"
        query = urlencode(
            {
                "pspReference": reference,
                "txType": "Payment",
                "accountKey": f"MerchantAccount.{fields.get('merchant_account', '')}",
            }
        )
        return f"https://{area}.adyen.com/ca/ca/accounts/showTx.shtml?{query}"

    def verify(self, credentials: Mapping[str, str]) -> CredentialProblem | None:
        """Check the key and merchant account with Adyen (the fields' shapes were checked by their rules before);
        unreachable Adyen raises."""
        return self.connect(credentials).verify()

    def parse_notification(
        self, *, payload: bytes, headers: Mapping[str, str], secret: str, credentials: Mapping[str, str]
    ) -> ParsedNotification:
        return notifications.parse_notification(
            payload=payload,
            headers=headers,
            secret=secret,
            tokenization_secret=credentials.get("tokenization_hmac_key") or None,
        )
