"""PayPal's test double for the whole suite: Prism per PayPal document behind the suite's front (mock.py)
started once per test session, and the fixture that points the paypal-paypal connector at it. Registered by the root
conftest.py, which walks the registry for each folder's `tests/double.py`."""

from collections.abc import Iterator

import pytest

from paymentservices.processors.paypal.tests.mock import PayPalMock, paypal_mock
from paymentservices.processors.tests.overrides import override_processor


@pytest.fixture(scope="session")
def paypal_prism() -> Iterator[PayPalMock]:
    with paypal_mock() as mock:
        yield mock


@pytest.fixture
def paypal_api(paypal_prism, settings, monkeypatch) -> Iterator[PayPalMock]:
    """Point the paypal-paypal connector at the validating mock, with no access token kept from an earlier test;
    afterwards, every request the library sent must have been valid by PayPal's documents."""
    override_processor(settings, "paypal", API_BASE=paypal_prism.url, TIMEOUT_SECONDS=5)
    monkeypatch.setattr("paymentservices.processors.paypal.connector._tokens", {})
    paypal_prism.reset()
    yield paypal_prism
    assert paypal_prism.violations() == []
