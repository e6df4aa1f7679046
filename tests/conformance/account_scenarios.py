"""Scenarios of webhook subscriptions, stored payment methods and the audit log."""

from __future__ import annotations

import uuid
from typing import Any

from buyers.tests.factories import BuyerFactory
from checkout.tests.factories import CheckoutSessionFactory
from paymentmethods.tests.factories import PaymentMethodFactory
from tests.conformance.world import (
    CARD,
    Scenario,
    World,
    _authorized,
    _transaction,
)
from webhooks.tests.factories import subscription_for

RECEIVER = "http://127.0.0.1:9/payments"


def _subscription(world: World) -> Any:
    return subscription_for(world.account, RECEIVER)


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    # webhook subscriptions
    ("/webhook-subscriptions", "POST", "created", lambda w: w.post("/webhook-subscriptions", {"url": RECEIVER})),
    ("/webhook-subscriptions", "POST", "invalid", lambda w: w.post("/webhook-subscriptions", {"url": "ftp://x"})),
    (
        "/webhook-subscriptions",
        "GET",
        "page",
        lambda w: (_subscription(w), w.client.get("/webhook-subscriptions"))[1],
    ),
    (
        "/webhook-subscriptions/{subscription_id}",
        "GET",
        "found",
        lambda w: w.client.get(f"/webhook-subscriptions/{_subscription(w).pk}"),
    ),
    (
        "/webhook-subscriptions/{subscription_id}",
        "GET",
        "missing",
        lambda w: w.client.get(f"/webhook-subscriptions/{uuid.uuid4()}"),
    ),
    (
        "/webhook-subscriptions/{subscription_id}",
        "PUT",
        "updated",
        lambda w: w.put(f"/webhook-subscriptions/{_subscription(w).pk}", {"active": False}),
    ),
    (
        "/webhook-subscriptions/{subscription_id}",
        "DELETE",
        "deleted",
        lambda w: w.client.delete(f"/webhook-subscriptions/{_subscription(w).pk}"),
    ),
    (
        "/webhook-subscriptions/{subscription_id}/rotate-secret",
        "POST",
        "rotated",
        lambda w: w.post(f"/webhook-subscriptions/{_subscription(w).pk}/rotate-secret", {"delta": 60}),
    ),
]


def _method(world: World) -> Any:
    return PaymentMethodFactory(merchant_account=world.account)


def _store(world: World, **fields: Any) -> Any:
    buyer = BuyerFactory(merchant_account=world.account)
    return world.post("/payment-methods", {**CARD, "buyer_id": str(buyer.pk), **fields})


SCENARIOS += [
    # stored payment methods
    ("/payment-methods", "POST", "stored", lambda w: _store(w)),
    (
        "/payment-methods",
        "POST",
        "from-session",
        lambda w: w.post(
            "/payment-methods",
            {
                "method": "checkout-session",
                "id": str(CheckoutSessionFactory(merchant_account=w.account, with_card=True).pk),
                "buyer_id": str(BuyerFactory(merchant_account=w.account).pk),
            },
        ),
    ),
    ("/payment-methods", "POST", "invalid", lambda w: _store(w, number="1234")),
    ("/payment-methods", "POST", "unknown-field", lambda w: _store(w, bogus=1)),
    ("/payment-methods", "POST", "wrong-scope", lambda w: w.read_only.post("/payment-methods", {}, format="json")),
    ("/payment-methods", "GET", "page", lambda w: (_method(w), w.client.get("/payment-methods"))[1]),
    ("/payment-methods", "GET", "bad-limit", lambda w: w.client.get("/payment-methods", {"limit": 1000})),
    ("/payment-methods", "GET", "unknown-parameter", lambda w: w.client.get("/payment-methods", {"bogus": 1})),
    (
        "/payment-methods/{payment_method_id}",
        "GET",
        "found",
        lambda w: w.client.get(f"/payment-methods/{_method(w).pk}"),
    ),
    (
        "/payment-methods/{payment_method_id}",
        "GET",
        "missing",
        lambda w: w.client.get(f"/payment-methods/{uuid.uuid4()}"),
    ),
    (
        "/payment-methods/{payment_method_id}",
        "PUT",
        "updated",
        lambda w: w.put(
            f"/payment-methods/{_method(w).pk}", {"expiration_date": "11/38", "scheme_transaction_id": "1"}
        ),
    ),
    (
        "/payment-methods/{payment_method_id}",
        "PUT",
        "invalid",
        lambda w: w.put(f"/payment-methods/{_method(w).pk}", {"expiration_date": "13/38"}),
    ),
    (
        "/payment-methods/{payment_method_id}",
        "DELETE",
        "deleted",
        lambda w: w.client.delete(f"/payment-methods/{_method(w).pk}"),
    ),
    (
        "/payment-methods/{payment_method_id}",
        "DELETE",
        "missing",
        lambda w: w.client.delete(f"/payment-methods/{uuid.uuid4()}"),
    ),
    (
        "/buyers/payment-methods",
        "GET",
        "list",
        lambda w: w.client.get("/buyers/payment-methods", {"buyer_id": str(_method(w).buyer_id)}),
    ),
    ("/buyers/payment-methods", "GET", "invalid", lambda w: w.client.get("/buyers/payment-methods")),
    (
        "/transactions",
        "POST",
        "stored-method",
        lambda w: _transaction(w, payment_method={"method": "id", "id": str(_method(w).pk), "security_code": "123"}),
    ),
    (
        "/transactions",
        "POST",
        "store-true",
        lambda w: _transaction(w, store=True, buyer_id=str(BuyerFactory(merchant_account=w.account).pk)),
    ),
    (
        "/transactions",
        "POST",
        "missing",
        lambda w: _transaction(w, payment_method={"method": "id", "id": str(uuid.uuid4())}),
    ),
]


def _audited(world: World) -> Any:
    """Writes through the API: a resource created and a transaction captured."""
    world.post("/buyers", {"display_name": "Jane Zoe"})
    world.post(f"/transactions/{_authorized(world).id}/capture", {})
    return world.client.get("/audit-logs?limit=5")


SCENARIOS += [
    ("/audit-logs", "GET", "page", _audited),
    ("/audit-logs", "GET", "filtered", lambda w: w.client.get("/audit-logs?action=created&resource_type=buyer")),
    ("/audit-logs", "GET", "wrong-scope", lambda w: w.read_only.get("/audit-logs")),
    ("/audit-logs", "GET", "no-token", lambda w: w.anonymous.get("/audit-logs")),
    ("/audit-logs", "GET", "bad-filter", lambda w: w.client.get("/audit-logs?action=approved")),
    ("/audit-logs", "GET", "unknown-filter", lambda w: w.client.get("/audit-logs?resource_id=1")),
    ("/audit-logs", "GET", "bad-limit", lambda w: w.client.get("/audit-logs?limit=101")),
]
