"""Scenarios of payment links."""

from __future__ import annotations

import uuid

from paymentlinks.tests.factories import PaymentLinkFactory
from tests.conformance.world import BILLING, SHIPPING, Scenario

FULL = {
    "amount": 1299,
    "currency": "USD",
    "country": "US",
    "intent": "capture",
    "expires_at": "2999-01-01T00:00:00Z",
    "external_identifier": "invoice-1",
    "statement_descriptor": {"name": "ACME SHOP"},
    "locale": "en-GB",
    "merchant_name": "ACME Inc.",
    "merchant_url": "https://acme.example.com",
    "merchant_banner_url": "https://acme.example.com/banner.png",
    "merchant_color": "#FF5733",
    "merchant_message": "Thank you!",
    "merchant_terms_and_conditions_url": "https://acme.example.com/terms",
    "merchant_favicon_url": "https://acme.example.com/favicon.ico",
    "return_url": "https://acme.example.com/thanks",
    "cart_items": [{"name": "Widget", "quantity": 1, "unit_amount": 1299}],
    "metadata": {"order_id": "1"},
    "buyer": {"display_name": "Ada", "billing_details": BILLING, "shipping_details": SHIPPING},
    "payment_source": "ecommerce",
    "store": False,
}


def _link(world, **fields):
    return PaymentLinkFactory(merchant_account=world.account, **fields)


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    ("/payment-links", "POST", "created", lambda w: w.post("/payment-links", FULL)),
    (
        "/payment-links",
        "POST",
        "minimal",
        lambda w: w.post("/payment-links", {"amount": 0, "currency": "EUR", "country": "DE"}),
    ),
    ("/payment-links", "POST", "invalid", lambda w: w.post("/payment-links", {**FULL, "merchant_color": "red"})),
    ("/payment-links", "POST", "unsupported", lambda w: w.post("/payment-links", {**FULL, "installment_count": 2})),
    ("/payment-links", "POST", "wrong-scope", lambda w: w.read_only.post("/payment-links", FULL, format="json")),
    ("/payment-links", "GET", "page", lambda w: (_link(w, completed=True), w.client.get("/payment-links"))[1]),
    ("/payment-links", "GET", "filtered", lambda w: w.client.get("/payment-links", {"status": ["active", "expired"]})),
    ("/payment-links", "GET", "bad-filter", lambda w: w.client.get("/payment-links", {"status": "paid"})),
    ("/payment-links", "GET", "no-token", lambda w: w.anonymous.get("/payment-links")),
    (
        "/payment-links/{payment_link_id}",
        "GET",
        "found",
        lambda w: w.client.get(
            f"/payment-links/{_link(w, buyer={'display_name': 'Ada', 'shipping_details': SHIPPING}).pk}"
        ),
    ),
    ("/payment-links/{payment_link_id}", "GET", "missing", lambda w: w.client.get(f"/payment-links/{uuid.uuid4()}")),
    (
        "/payment-links/{payment_link_id}/expire",
        "POST",
        "expired",
        lambda w: w.client.post(f"/payment-links/{_link(w).pk}/expire"),
    ),
    (
        "/payment-links/{payment_link_id}/expire",
        "POST",
        "conflict",
        lambda w: w.client.post(f"/payment-links/{_link(w, completed=True).pk}/expire"),
    ),
    (
        "/payment-links/{payment_link_id}/expire",
        "POST",
        "missing",
        lambda w: w.client.post(f"/payment-links/{uuid.uuid4()}/expire"),
    ),
]
