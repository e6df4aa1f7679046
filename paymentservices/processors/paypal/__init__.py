"""PayPal: payments the buyer approves at PayPal, through PayPal's Orders v2 and Payments v2 APIs with PayPal's
official library (docs/payment-services.md, "PayPal")."""

from paymentservices.processors.paypal.connector import PayPalConnector
from paymentservices.processors.paypal.processor import PayPalProcessor
from paymentservices.processors.paypal.settlements import read_paypal_file

PROCESSOR = PayPalProcessor()

__all__ = ["PROCESSOR", "PayPalConnector", "read_paypal_file"]
