from urllib.parse import urlsplit

import pytest

from paymentservices.definitions import SANDBOX_ID
from paymentservices.processors import processor_get
from transactions.tests.connectors import ScriptedConnector

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


@pytest.fixture
def connector(monkeypatch) -> type[ScriptedConnector]:
    """Every `mock-card` service (each account's default) answers through `ScriptedConnector`; tests set
    `connector.script[...]`."""
    ScriptedConnector.script = {}
    ScriptedConnector.killed_after = set()
    ScriptedConnector.calls = []
    monkeypatch.setattr(processor_get(SANDBOX_ID), "connect", lambda credentials, deadline=None: ScriptedConnector())
    return ScriptedConnector


@pytest.fixture
def challenged(api_client, merchant_account, connector):
    """A 3-D Secure challenge maker: pays with a challenge card (docs/test-cards.md) to the account's sandbox with
    3-D Secure on; returns (transaction id, page path). The account's shop is at https://shop.example."""
    from paymentservices.models import PaymentService
    from paymentservices.services import payment_service_update
    from transactions.tests.test_three_d_secure import CHALLENGE_Y, pay

    client = api_client(scopes=["transactions.read", "transactions.write"])

    service = PaymentService.objects.get(merchant_account=merchant_account, definition_id="mock-card")
    payment_service_update(service=service, three_d_secure_enabled=True)
    merchant_account.allowed_origins = ["https://shop.example"]
    merchant_account.save()

    def make(number: str = CHALLENGE_Y, **fields) -> tuple[str, str]:
        body = pay(client, number=number, **fields).json()
        assert body["status"] == "buyer_approval_pending", body
        return body["id"], urlsplit(body["payment_method"]["approval_url"]).path

    return make


@pytest.fixture(autouse=True)
def _fresh_rate_limit_counts():
    """PIN-failure and embed-token counters live in the rate-limit cache, which outlives a test."""
    from django.core.cache import caches

    caches["ratelimit"].clear()
    yield
    caches["ratelimit"].clear()
