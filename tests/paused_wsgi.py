"""The project's WSGI application, with one difference for the Stripe crash test: the stripe-card connector waits
`PAUSE_AFTER_STRIPE_AUTHORIZE_SECONDS` after Stripe answered an authorization, before the answer goes back to be
recorded. The test kills the worker in that pause: the PaymentIntent exists at Stripe, nothing here knows of it."""

import os
import time

from config.wsgi import application
from payments.connectors.base import AuthorizationRequest, ConnectorResult
from paymentservices.processors.stripe import StripeConnector

__all__ = ["application"]

_authorize = StripeConnector.authorize


def _paused_authorize(self: StripeConnector, request: AuthorizationRequest) -> ConnectorResult:
    result = _authorize(self, request)
    time.sleep(float(os.environ.get("PAUSE_AFTER_STRIPE_AUTHORIZE_SECONDS", "0")))
    return result


StripeConnector.authorize = _paused_authorize  # type: ignore[method-assign]
