"""Stripe's dashboard page of a payment, for the desk's link: test mode when the service's publishable key says so."""

import pytest

from paymentservices.processors.stripe.processor import StripeProcessor


@pytest.mark.parametrize(
    ("fields", "url"),
    [
        ({"publishable_key": "pk_test_abc"}, "https://dashboard.stripe.com/test/payments/pi_123"),
        ({"publishable_key": "pk_live_abc"}, "https://dashboard.stripe.com/payments/pi_123"),
        ({}, "https://dashboard.stripe.com/payments/pi_123"),
    ],
    ids=["test-key", "live-key", "no-publishable-key"],
)
def test_a_payment_links_to_stripes_dashboard(fields, url):
    assert StripeProcessor().dashboard_url(reference="pi_123", fields=fields) == url


def test_a_reference_is_quoted_into_the_path():
    assert StripeProcessor().dashboard_url(reference="pi_1/../x", fields={}).endswith("/payments/pi_1%2F..%2Fx")
