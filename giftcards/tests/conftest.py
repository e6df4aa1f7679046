import pytest
from django.core.cache import caches


@pytest.fixture(autouse=True)
def _fresh_pin_failure_counts():
    """PIN-failure counters live in the rate-limit cache, which outlives a test (and, on Redis, a run)."""
    caches["ratelimit"].clear()
    yield
    caches["ratelimit"].clear()
