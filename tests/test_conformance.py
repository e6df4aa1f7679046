"""Every answer of every implemented operation validates against the upstream document's schema for that operation
and status: real responses, made through the API with factories and services, in each shape an operation can take.

The schemas are the project's contract of the document (contracts/gr4vy/, docs/contracts.md). It is OpenAPI 3.1, whose
schemas are JSON Schema 2020-12: each response is validated against its operation's schema for the status, with a
`referencing` registry resolving `#/components/...`.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.conformance import (
    account_scenarios,
    digital_wallet_scenarios,
    key_scenarios,
    merchant_scenarios,
    network_token_scenarios,
    payment_link_scenarios,
    payment_service_scenarios,
    payment_service_token_scenarios,
    payout_scenarios,
    report_scenarios,
    resource_scenarios,
    settlement_scenarios,
    transaction_scenarios,
)
from tests.conformance.document import _document, validate
from tests.conformance.world import World

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(api_client, all_accounts_client, merchant_account, settings) -> World:
    from django.core.cache import caches

    settings.RATELIMIT_EMBED = "2/m"  # the rate-limited scenario's third request is refused
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    caches["ratelimit"].clear()
    return World(
        client=api_client(scopes=["*.read", "*.write"]),
        read_only=api_client(scopes=["buyers.read"]),
        anonymous=APIClient(),
        embed=api_client(scopes=["embed"], embed={"amount": 1299, "currency": "USD"}),
        account=merchant_account,
        platform=all_accounts_client(scopes=["*.read", "*.write"]),
    )


# (upstream path, method, what the scenario shows, the request), by group of resources.
SCENARIOS = (
    resource_scenarios.SCENARIOS
    + transaction_scenarios.SCENARIOS
    + account_scenarios.SCENARIOS
    + payment_service_scenarios.SCENARIOS
    + merchant_scenarios.SCENARIOS
    + report_scenarios.SCENARIOS
    + settlement_scenarios.SCENARIOS
    + network_token_scenarios.SCENARIOS
    + payout_scenarios.SCENARIOS
    + key_scenarios.SCENARIOS
    + payment_link_scenarios.SCENARIOS
    + digital_wallet_scenarios.SCENARIOS
    + payment_service_token_scenarios.SCENARIOS
)

# Scenarios showing a refusal; every other scenario shows a success and must answer 2xx.
REFUSALS = {
    "invalid",
    "missing",
    "conflict",
    "unknown-parameter",
    "unknown-filter",
    "unknown-field",
    "wrong-scope",
    "bad-limit",
    "bad-filter",
    "no-token",
    "duplicate",
    "embed-pin-differs",
    "rate-limited",
    "nothing-left",
    "wrong-pin",
    "unsupported",
    "missing-redirect-url",
}


@pytest.mark.parametrize(
    ("path", "method", "name", "scenario"),
    SCENARIOS,
    ids=[f"{method} {path} {name}" for path, method, name, _ in SCENARIOS],
)
def test_answers_validate_against_the_upstream_schema(world, path, method, name, scenario):
    response = scenario(world)

    if name not in REFUSALS:
        assert 200 <= response.status_code < 300, response.content
    validate(path, method, response)


def test_every_implemented_operation_is_covered_with_a_success(client):
    """Every operation this server serves that upstream defines has a scenario above that succeeds."""
    ours = client.get("/openapi.json").json()["paths"]
    upstream = _document()["paths"]
    implemented = {
        (path, method.upper())
        for path, operations in ours.items()
        if path in upstream
        for method in operations
        if method in upstream[path]
    }
    covered = {(path, method) for path, method, name, _ in SCENARIOS if name not in REFUSALS}

    always_refused = (
        payment_service_scenarios.ALWAYS_REFUSED
        | network_token_scenarios.ALWAYS_REFUSED
        | transaction_scenarios.ALWAYS_REFUSED
        | digital_wallet_scenarios.ALWAYS_REFUSED
    )
    assert covered | always_refused == implemented
