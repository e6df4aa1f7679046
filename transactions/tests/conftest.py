from dataclasses import replace

import pytest

from paymentservices.definitions import DEFINITIONS, MOCK_CARD
from transactions.tests.connectors import ScriptedConnector

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


@pytest.fixture
def connector(monkeypatch) -> type[ScriptedConnector]:
    """Every `mock-card` service (each account's default) answers through `ScriptedConnector`; tests set
    `connector.script[...]`."""
    ScriptedConnector.script = {}
    ScriptedConnector.killed_after = set()
    ScriptedConnector.calls = []
    scripted = replace(DEFINITIONS[MOCK_CARD], connector=lambda credentials, deadline=None: ScriptedConnector())
    monkeypatch.setitem(DEFINITIONS, MOCK_CARD, scripted)
    return ScriptedConnector


@pytest.fixture(autouse=True)
def _fresh_rate_limit_counts():
    """PIN-failure and embed-token counters live in the rate-limit cache, which outlives a test."""
    from django.core.cache import caches

    caches["ratelimit"].clear()
    yield
    caches["ratelimit"].clear()
