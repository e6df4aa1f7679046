"""Scenarios of payment services and their definitions."""

from __future__ import annotations

import uuid
from typing import Any

from paymentservices.tests.factories import PaymentServiceFactory
from tests.conformance.world import Scenario, World


def _payment_service(world: World) -> Any:
    return PaymentServiceFactory(
        merchant_account=world.account,
        fields=[{"key": "secret_key", "value": "sk_test_conformance"}, {"key": "webhook_secret", "value": "whsec_c"}],
    )


STRIPE_SERVICE = {
    "display_name": "Stripe",
    "payment_service_definition_id": "stripe-card",
    "fields": [{"key": "secret_key", "value": "sk_test_conformance"}],
    "accepted_currencies": ["USD", "EUR"],
    "accepted_countries": ["US", "DE"],
    "active": True,
    "three_d_secure_enabled": False,
    "settlement_reporting_enabled": False,
}
SERVICE = "/payment-services/{payment_service_id}"
DEFINITION = "/payment-service-definitions/{payment_service_definition_id}"
DEFINITIONS_PAGE = "/payment-service-definitions"

SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    ("/payment-service-definitions", "GET", "page", lambda w: w.client.get("/payment-service-definitions")),
    (
        "/payment-service-definitions",
        "GET",
        "first-of-two",
        lambda w: w.client.get("/payment-service-definitions?limit=1"),
    ),
    (
        "/payment-service-definitions",
        "GET",
        "bad-limit",
        lambda w: w.client.get("/payment-service-definitions?limit=0"),
    ),
    ("/payment-service-definitions", "GET", "wrong-scope", lambda w: w.read_only.get("/payment-service-definitions")),
    ("/payment-service-definitions", "GET", "no-token", lambda w: w.anonymous.get("/payment-service-definitions")),
    (DEFINITION, "GET", "stripe-card", lambda w: w.client.get("/payment-service-definitions/stripe-card")),
    (DEFINITION, "GET", "mock-card", lambda w: w.client.get("/payment-service-definitions/mock-card")),
    (DEFINITION, "GET", "missing", lambda w: w.client.get("/payment-service-definitions/worldpay-card")),
    (
        f"{DEFINITION}/sessions",
        "POST",
        "unsupported",
        lambda w: w.post("/payment-service-definitions/stripe-card/sessions", {"a": 1}),
    ),
    ("/card-scheme-definitions", "GET", "all", lambda w: w.client.get("/card-scheme-definitions")),
    ("/card-scheme-definitions", "GET", "wrong-scope", lambda w: w.read_only.get("/card-scheme-definitions")),
    (
        "/card-scheme-definitions",
        "GET",
        "unknown-parameter",
        lambda w: w.client.get("/card-scheme-definitions?limit=2"),
    ),
    ("/payment-method-definitions", "GET", "all", lambda w: w.client.get("/payment-method-definitions")),
    ("/payment-method-definitions", "GET", "no-token", lambda w: w.anonymous.get("/payment-method-definitions")),
    ("/payment-services", "GET", "page", lambda w: (_payment_service(w), w.client.get("/payment-services"))[1]),
    ("/payment-services", "GET", "deleted", lambda w: w.client.get("/payment-services?deleted=true&method=card")),
    ("/payment-services", "GET", "bad-filter", lambda w: w.client.get("/payment-services?deleted=maybe")),
    ("/payment-services", "GET", "unknown-parameter", lambda w: w.client.get("/payment-services?bogus=1")),
    ("/payment-services", "GET", "wrong-scope", lambda w: w.read_only.get("/payment-services")),
    ("/payment-services", "POST", "stripe-card", lambda w: w.post("/payment-services", STRIPE_SERVICE)),
    (
        "/payment-services",
        "POST",
        "invalid",
        lambda w: w.post("/payment-services", {**STRIPE_SERVICE, "payment_service_definition_id": "worldpay-card"}),
    ),
    ("/payment-services", "POST", "unknown-field", lambda w: w.post("/payment-services", {**STRIPE_SERVICE, "x": 1})),
    (SERVICE, "GET", "stripe-card", lambda w: w.client.get(f"/payment-services/{_payment_service(w).pk}")),
    (SERVICE, "GET", "missing", lambda w: w.client.get(f"/payment-services/{uuid.uuid4()}")),
    (
        SERVICE,
        "PUT",
        "moved",
        lambda w: w.put(f"/payment-services/{_payment_service(w).pk}", {"position": 1, "display_name": "First"}),
    ),
    (
        SERVICE,
        "PUT",
        "invalid",
        lambda w: w.put(f"/payment-services/{_payment_service(w).pk}", {"accepted_countries": ["ZZ"]}),
    ),
    (SERVICE, "DELETE", "deleted", lambda w: w.client.delete(f"/payment-services/{_payment_service(w).pk}")),
    (SERVICE, "DELETE", "missing", lambda w: w.client.delete(f"/payment-services/{uuid.uuid4()}")),
    (
        f"{SERVICE}/sessions",
        "POST",
        "unsupported",
        lambda w: w.post(f"/payment-services/{_payment_service(w).pk}/sessions", {"a": 1}),
    ),
    (
        "/payment-services/verify",
        "POST",
        "mock-card",
        lambda w: w.post(
            "/payment-services/verify",
            {"payment_service_definition_id": "mock-card", "fields": [{"key": "merchant_id", "value": "test"}]},
        ),
    ),
    (
        "/payment-services/verify",
        "POST",
        "invalid",
        lambda w: w.post("/payment-services/verify", {"payment_service_definition_id": "stripe-card", "fields": []}),
    ),
]
# Operations this server implements only to refuse by name: no definition here needs a processor session.
ALWAYS_REFUSED = {(f"{DEFINITION}/sessions", "POST"), (f"{SERVICE}/sessions", "POST")}
