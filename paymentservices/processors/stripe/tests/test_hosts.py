"""Stripe's connector sends nothing to a host that is not Stripe's API host (or exactly STRIPE_API_BASE)."""

from __future__ import annotations

from payments.connectors.base import AuthorizationRequest, Outcome
from paymentservices.processors.hosts import url_allowed
from paymentservices.processors.stripe.connector import StripeConnector
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.processors.tests.requests import card_request


def _request() -> AuthorizationRequest:
    return card_request(reference="hosts-1")


def test_stripes_host_is_its_api_host_only():
    assert url_allowed("https://api.stripe.com/v1/payment_intents", domains=("api.stripe.com",))
    assert not url_allowed("https://files.stripe.com.evil.com/v1", domains=("api.stripe.com",))


def test_the_stripe_connector_sends_nothing_outside_the_configured_base(settings, listener):
    """The base a client was made with is checked against the operator's setting again at each call."""
    override_processor(settings, "stripe", API_BASE=f"http://127.0.0.1:{listener.port}")
    connector = StripeConnector(secret_key="sk_test_hosts_0123")
    override_processor(settings, "stripe", API_BASE="https://api.stripe.com")

    result = connector.authorize(_request())

    assert (result.outcome, result.error_code) == (Outcome.FAILED, "invalid_service_configuration")
    assert listener.connections == 0
