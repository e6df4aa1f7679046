"""Stripe's test double for the whole suite: localstripe (a fake Stripe, mock.py) started once per test
session, and the fixture that points the stripe-card connector at it. Registered by the root conftest.py, which walks
the registry for each folder's `tests/double.py`."""

from collections.abc import Iterator

import pytest

from paymentservices.processors.stripe.tests.mock import FakeStripe, localstripe
from paymentservices.processors.tests.overrides import override_processor


@pytest.fixture(scope="session")
def fake_stripe() -> Iterator[FakeStripe]:
    with localstripe() as fake:
        yield fake


@pytest.fixture
def stripe_api(fake_stripe, settings) -> FakeStripe:
    """Point the stripe-card connector at the fake."""
    override_processor(settings, "stripe", API_BASE=fake_stripe.url, TIMEOUT_SECONDS=5)
    return fake_stripe
