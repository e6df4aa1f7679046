"""Adyen: card payments through Adyen's Checkout API with Adyen's official library, and its standard webhooks
(docs/payment-services.md)."""

from paymentservices.processors.adyen.connector import AdyenConnector
from paymentservices.processors.adyen.processor import AdyenProcessor

PROCESSOR = AdyenProcessor()

__all__ = ["PROCESSOR", "AdyenConnector"]
