"""PayPal: payments the buyer approves at PayPal, through PayPal's Orders v2 and Payments v2 APIs with PayPal's
official library (docs/payment-services.md, "PayPal")."""

from paymentservices.processors.paypal.connector import PayPalConnector
from paymentservices.processors.paypal.processor import PayPalProcessor

PROCESSOR = PayPalProcessor()

__all__ = ["PROCESSOR", "PayPalConnector"]
