"""A fake Stripe for the connector tests: localstripe as a real process, one per test session."""

from collections.abc import Iterator

import pytest

from tests.servers import FakeStripe, localstripe


@pytest.fixture(scope="session")
def fake_stripe() -> Iterator[FakeStripe]:
    with localstripe() as fake:
        yield fake


@pytest.fixture
def stripe_api(fake_stripe, settings) -> FakeStripe:
    """Point the stripe-card connector at the fake."""
    settings.STRIPE_API_BASE = fake_stripe.url
    settings.STRIPE_TIMEOUT_SECONDS = 5
    return fake_stripe
