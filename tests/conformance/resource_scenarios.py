"""Scenarios of buyers, their shipping details, gift cards and checkout sessions."""

from __future__ import annotations

import uuid

from buyers.services import MAX_SHIPPING_DETAILS_PER_BUYER
from buyers.tests.factories import BuyerFactory
from checkout.tests.factories import CheckoutSessionFactory
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory
from tests.conformance.world import (
    BILLING,
    CARD,
    SHIPPING,
    Scenario,
    _buyer,
    _number_and_pin,
    _shipping_details,
    _shipping_path,
)

ISSUANCE = {"theme": "birthday", "amount": 2500, "currency": "EUR"}


def _preprinted(world):
    """A card the command issued inactive, waiting for its activation."""
    return IssuedGiftCardFactory(merchant_account=world.account, preprinted=True)


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    # buyers
    ("/buyers", "GET", "page", lambda w: (BuyerFactory(merchant_account=w.account), w.client.get("/buyers"))[1]),
    ("/buyers", "GET", "bad-limit", lambda w: w.client.get("/buyers", {"limit": 0})),
    ("/buyers", "GET", "unknown-parameter", lambda w: w.client.get("/buyers", {"bogus": 1})),
    ("/buyers", "GET", "no-token", lambda w: w.anonymous.get("/buyers")),
    ("/buyers", "POST", "created", lambda w: w.post("/buyers", {"display_name": "Ada", "external_identifier": "a"})),
    ("/buyers", "POST", "invalid", lambda w: w.post("/buyers", {"display_name": ""})),
    ("/buyers", "POST", "wrong-scope", lambda w: w.read_only.post("/buyers", {}, format="json")),
    (
        "/buyers",
        "POST",
        "duplicate",
        lambda w: (
            BuyerFactory(merchant_account=w.account, external_identifier="dup"),
            w.post("/buyers", {"external_identifier": "dup"}),
        )[1],
    ),
    (
        "/buyers/{buyer_id}",
        "GET",
        "found",
        lambda w: w.client.get(f"/buyers/{BuyerFactory(merchant_account=w.account, billing_details=BILLING).pk}"),
    ),
    ("/buyers/{buyer_id}", "GET", "missing", lambda w: w.client.get(f"/buyers/{uuid.uuid4()}")),
    ("/buyers/{buyer_id}", "GET", "unknown-parameter", lambda w: w.client.get(f"/buyers/{uuid.uuid4()}", {"x": 1})),
    (
        "/buyers/{buyer_id}",
        "PUT",
        "updated",
        lambda w: w.put(f"/buyers/{BuyerFactory(merchant_account=w.account).pk}", {"billing_details": BILLING}),
    ),
    (
        "/buyers/{buyer_id}",
        "DELETE",
        "deleted",
        lambda w: w.client.delete(f"/buyers/{BuyerFactory(merchant_account=w.account).pk}"),
    ),
    # a buyer's shipping details
    (
        "/buyers/{buyer_id}/shipping-details",
        "POST",
        "created",
        lambda w: w.post(_shipping_path(_buyer(w)), SHIPPING),
    ),
    (
        "/buyers/{buyer_id}/shipping-details",
        "POST",
        "invalid",
        lambda w: w.post(_shipping_path(_buyer(w)), {"phone_number": "0207"}),
    ),
    ("/buyers/{buyer_id}/shipping-details", "POST", "missing", lambda w: w.post(_shipping_path(uuid.uuid4()), {})),
    (
        "/buyers/{buyer_id}/shipping-details",
        "POST",
        "wrong-scope",
        lambda w: w.read_only.post(_shipping_path(_buyer(w)), {}, format="json"),
    ),
    (
        "/buyers/{buyer_id}/shipping-details",
        "POST",
        "conflict",
        lambda w: w.post(_shipping_path(_buyer(w, shipping_details=MAX_SHIPPING_DETAILS_PER_BUYER)), SHIPPING),
    ),
    (
        "/buyers/{buyer_id}/shipping-details",
        "GET",
        "list",
        lambda w: w.client.get(_shipping_path(_buyer(w, shipping_details=2))),
    ),
    (
        "/buyers/{buyer_id}/shipping-details",
        "GET",
        "unknown-parameter",
        lambda w: w.client.get(_shipping_path(_buyer(w)), {"limit": 20}),
    ),
    ("/buyers/{buyer_id}/shipping-details", "GET", "missing", lambda w: w.client.get(_shipping_path(uuid.uuid4()))),
    (
        "/buyers/{buyer_id}/shipping-details/{shipping_details_id}",
        "GET",
        "found",
        lambda w: w.client.get(_shipping_path(*_shipping_details(w))),
    ),
    (
        "/buyers/{buyer_id}/shipping-details/{shipping_details_id}",
        "GET",
        "missing",
        lambda w: w.client.get(_shipping_path(_buyer(w), uuid.uuid4())),
    ),
    (
        "/buyers/{buyer_id}/shipping-details/{shipping_details_id}",
        "PUT",
        "updated",
        lambda w: w.put(_shipping_path(*_shipping_details(w)), {"first_name": "Grace", "address": None}),
    ),
    (
        "/buyers/{buyer_id}/shipping-details/{shipping_details_id}",
        "PUT",
        "invalid",
        lambda w: w.put(_shipping_path(*_shipping_details(w)), {"address": {"country": "XX"}}),
    ),
    (
        "/buyers/{buyer_id}/shipping-details/{shipping_details_id}",
        "DELETE",
        "deleted",
        lambda w: w.client.delete(_shipping_path(*_shipping_details(w))),
    ),
    (
        "/buyers/{buyer_id}/shipping-details/{shipping_details_id}",
        "DELETE",
        "missing",
        lambda w: w.client.delete(_shipping_path(_buyer(w), uuid.uuid4())),
    ),
    # gift cards
    (
        "/gift-cards",
        "GET",
        "page",
        lambda w: (GiftCardFactory(merchant_account=w.account), w.client.get("/gift-cards"))[1],
    ),
    (
        "/gift-cards",
        "POST",
        "stored",
        lambda w: w.post("/gift-cards", _number_and_pin(IssuedGiftCardFactory(merchant_account=w.account))),
    ),
    ("/gift-cards", "POST", "invalid", lambda w: w.post("/gift-cards", {"number": "12", "pin": "1"})),
    (
        "/gift-cards/{gift_card_id}",
        "GET",
        "found",
        lambda w: w.client.get(f"/gift-cards/{GiftCardFactory(merchant_account=w.account).pk}"),
    ),
    ("/gift-cards/{gift_card_id}", "GET", "missing", lambda w: w.client.get(f"/gift-cards/{uuid.uuid4()}")),
    (
        "/gift-cards/{gift_card_id}",
        "DELETE",
        "deleted",
        lambda w: w.client.delete(f"/gift-cards/{GiftCardFactory(merchant_account=w.account).pk}"),
    ),
    (
        "/gift-cards/balances",
        "POST",
        "balances",
        lambda w: w.post(
            "/gift-cards/balances",
            {
                "items": [
                    _number_and_pin(IssuedGiftCardFactory(merchant_account=w.account)),
                    {"number": "6035710000000099999", "pin": "1"},
                    {"id": str(GiftCardFactory(merchant_account=w.account).pk)},
                ]
            },
        ),
    ),
    ("/gift-cards/balances", "POST", "invalid", lambda w: w.post("/gift-cards/balances", {"items": [{}]})),
    (
        "/buyers/gift-cards",
        "GET",
        "list",
        lambda w: w.client.get(
            "/buyers/gift-cards", {"buyer_id": str(GiftCardFactory(merchant_account=w.account).buyer_id)}
        ),
    ),
    ("/buyers/gift-cards", "GET", "invalid", lambda w: w.client.get("/buyers/gift-cards")),
    (
        "/gift-cards/issuances",
        "POST",
        "issued",
        lambda w: w.post("/gift-cards/issuances", ISSUANCE, HTTP_IDEMPOTENCY_KEY="conformance-issue"),
    ),
    ("/gift-cards/issuances", "POST", "invalid", lambda w: w.post("/gift-cards/issuances", {**ISSUANCE, "amount": 0})),
    ("/gift-cards/issuances", "POST", "wrong-scope", lambda w: w.read_only.post("/gift-cards/issuances", ISSUANCE)),
    (
        "/gift-cards/activations",
        "POST",
        "activated",
        lambda w: w.post(
            "/gift-cards/activations",
            {**_number_and_pin(_preprinted(w)), "amount": 500, "currency": "USD", "external_identifier": "order-1"},
        ),
    ),
    (
        "/gift-cards/activations",
        "POST",
        "stored",
        lambda w: w.post(
            "/gift-cards/activations", {**_number_and_pin(_preprinted(w)), "store": True, "buyer_id": str(_buyer(w))}
        ),
    ),
    (
        "/gift-cards/activations",
        "POST",
        "wrong-pin",
        lambda w: w.post("/gift-cards/activations", {"number": _preprinted(w).number, "pin": "0"}),
    ),
    (
        "/gift-cards/activations",
        "POST",
        "conflict",
        lambda w: w.post("/gift-cards/activations", _number_and_pin(IssuedGiftCardFactory(merchant_account=w.account))),
    ),
    ("/gift-cards/activations", "POST", "invalid", lambda w: w.post("/gift-cards/activations", {"number": "12"})),
    # checkout sessions
    ("/checkout/sessions", "POST", "empty", lambda w: w.client.post("/checkout/sessions")),
    (
        "/checkout/sessions",
        "POST",
        "full",
        lambda w: w.post(
            "/checkout/sessions",
            {"amount": 1299, "currency": "USD", "cart_items": [{"name": "Tea", "quantity": 1, "unit_amount": 1299}]},
        ),
    ),
    ("/checkout/sessions", "POST", "invalid", lambda w: w.post("/checkout/sessions", {"expires_in": 1})),
    (
        "/checkout/sessions/{session_id}",
        "GET",
        "with-card",
        lambda w: w.client.get(
            f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=w.account, with_card=True).pk}"
        ),
    ),
    ("/checkout/sessions/{session_id}", "GET", "missing", lambda w: w.client.get(f"/checkout/sessions/{uuid.uuid4()}")),
    (
        "/checkout/sessions/{session_id}",
        "PUT",
        "updated",
        lambda w: w.put(
            f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=w.account).pk}",
            {"metadata": {"a": "b"}, "expires_in": 3600.0},
        ),
    ),
    (
        "/checkout/sessions/{session_id}",
        "DELETE",
        "deleted",
        lambda w: w.client.delete(f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=w.account).pk}"),
    ),
    (
        "/checkout/sessions/{session_id}/fields",
        "PUT",
        "stored",
        lambda w: w.anonymous.put(
            f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=w.account).pk}/fields",
            {"payment_method": CARD},
            format="json",
        ),
    ),
    (
        "/checkout/sessions/{session_id}/fields",
        "PUT",
        "invalid",
        lambda w: w.anonymous.put(
            f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=w.account).pk}/fields",
            {"payment_method": {**CARD, "number": "1234"}},
            format="json",
        ),
    ),
]
