"""A connector sends nothing to a host that is not its processor's (or exactly the API base the operator configured):
the attack of issue 31 replayed on production settings, with a listener on 127.0.0.1 counting every connection made
to it. A hostile live URL prefix is refused by the API, and one planted in the database past the API never causes a
connection: the stored value is held to its field's rule again before use, and the connector checks the URL it built
(and the library's HTTP client every URL it calls) against Adyen's own domains. Each processor's own cases are
in its folder (`paymentservices/processors/<name>/tests/test_hosts.py`)."""

from __future__ import annotations

import pytest

from payments.connectors.base import AuthorizationRequest, CardDetails
from paymentservices.processors.hosts import url_allowed

ADYEN_DOMAINS = ("adyenpayments.com", "adyen.com")
LIVE_PREFIX = "1797a841fbb37ca7-AdyenDemo"


def _request() -> AuthorizationRequest:
    card = CardDetails(number="4111111111111111", expiration_month=3, expiration_year=2030, security_code="737")
    return AuthorizationRequest(card=card, amount=1299, currency="EUR", capture=False, reference="hosts-1")


@pytest.mark.parametrize(
    ("url", "configured", "allowed"),
    [
        (f"https://{LIVE_PREFIX}-checkout-live.adyenpayments.com/checkout/v72/payments", "", True),
        ("https://checkout-test.adyen.com/v72/payments", "", True),
        ("https://CHECKOUT-TEST.ADYEN.COM/v72/payments", "", True),
        ("https://checkout-test.adyen.com:443/v72/payments", "", True),
        ("http://127.0.0.1:8999/payments", "http://127.0.0.1:8999", True),
        ("http://127.0.0.1:8999/payments", "http://127.0.0.1:8999/", True),
        ("http://127.0.0.1:89991/payments", "http://127.0.0.1:8999", False),
        ("http://127.0.0.1:8999/payments", "", False),
        ("http://checkout-test.adyen.com/v72/payments", "", False),
        ("https://checkout-test.adyen.com:8443/v72/payments", "", False),
        ("https://x@127.0.0.1:8999/?-checkout-live.adyenpayments.com/checkout/v72", "", False),
        ("https://evil.com/-checkout-live.adyenpayments.com/checkout/v72", "", False),
        ("https://a#-checkout-live.adyenpayments.com/checkout/v72", "", False),
        ("https://../x-checkout-live.adyenpayments.com/checkout/v72", "", False),
        ("https://localhost:6379-checkout-live.adyenpayments.com/checkout/v72", "", False),
        ("https://evil.com\\.adyenpayments.com/checkout/v72", "", False),
        ("https://a\nb-checkout-live.adyenpayments.com/checkout/v72", "", False),
        ("https://evil-adyen.com/v72", "", False),
        ("https://adyen.com.evil.com/v72", "", False),
        ("https://١٢٣-checkout-live.adyenpayments.com/checkout/v72", "", False),
    ],
)
def test_which_urls_a_connector_may_call(url, configured, allowed):
    assert url_allowed(url, domains=ADYEN_DOMAINS, configured=configured) is allowed
