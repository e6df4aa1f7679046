"""Stripe: card payments through Stripe's official library, its events, and Stripe's own 3-D Secure on a page of this
server (docs/payment-services.md)."""

from paymentservices.processors.stripe.connector import StripeConnector
from paymentservices.processors.stripe.processor import StripeProcessor

PROCESSOR = StripeProcessor()

__all__ = ["PROCESSOR", "StripeConnector"]
