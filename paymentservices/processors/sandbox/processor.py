"""The sandbox as a processor: the `mock-card` definition, whose connector is the sandbox (`sandbox.connector`). It
takes no credentials worth checking and sends no notifications."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, cast

from payments.connectors.base import PaymentConnector
from paymentservices.processors.features import CARD_FEATURES
from paymentservices.processors.sandbox.connector import SandboxConnector
from paymentservices.processors.sandbox.disputes import SandboxDisputes
from paymentservices.processors.sandbox.payouts import SandboxPayouts
from paymentservices.processors.sandbox.settlements import SandboxSettlements
from paymentservices.processors.sandbox.tokens import SandboxTokens
from paymentservices.processors.seam import CredentialProblem, DefinitionField, Processor


class SandboxProcessor(Processor):
    id = "mock-card"
    slug = "sandbox"
    settlements = SandboxSettlements()
    payouts = SandboxPayouts()
    disputes = SandboxDisputes()
    tokens = SandboxTokens()
    display_name = "Mock card (sandbox)"
    # Upstream's simulator is set up with a merchant ID of the merchant's choosing that nothing reads.
    fields = (DefinitionField("merchant_id", "Merchant ID", required=True, secret=False),)
    features: ClassVar[Mapping[str, bool]] = {
        **CARD_FEATURES,
        "three_d_secure_pass_through": True,
        "webhooks": False,
        "multiple_captures": True,
        "incremental_authorization": True,
        "payouts": True,
        "payment_method_tokenization": True,
        "network_tokens": True,
    }
    sandbox = True
    network_tokens = True

    def connect(self, credentials: Mapping[str, str], deadline: float | None = None) -> PaymentConnector:
        # The sandbox answers at once, whatever the deadline; it is a PaymentConnector (checked at run time).
        return cast(PaymentConnector, SandboxConnector())

    def verify(self, credentials: Mapping[str, str]) -> CredentialProblem | None:
        """Nothing to check: the sandbox has no account."""
        return None
