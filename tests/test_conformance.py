"""Every answer of every implemented operation validates against the upstream document's schema for that operation
and status: real responses, made through the API with factories and services, in each shape an operation can take.

The document is read from `shared/reference/` beside the repository (never copied into it). It is OpenAPI 3.1, whose
schemas are JSON Schema 2020-12: each response is validated against its operation's schema for the status, with a
`referencing` registry resolving `#/components/...`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from jsonschema import Draft202012Validator, FormatChecker  # type: ignore[import-untyped]
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from rest_framework.test import APIClient

from buyers.services import MAX_SHIPPING_DETAILS_PER_BUYER
from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from checkout.tests.factories import CheckoutSessionFactory
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory
from paymentmethods.tests.factories import PaymentMethodFactory
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.tests.factories import RefundFactory, TransactionFactory
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db

REFERENCE = Path(settings.BASE_DIR).parent / "shared" / "reference" / "gr4vy-openapi-subset.json"
DOCUMENT_URI = "urn:upstream-openapi"
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}
DECLINED_CARD = {**CARD, "number": "4000000000000002"}
SDK_DEFAULTS = {
    "store": False,
    "is_subsequent_payment": False,
    "merchant_initiated": False,
    "async_capture": False,
    "account_funding_transaction": False,
    "allow_partial_authorization": False,
}
THREE_D_SECURE = {
    "version": "2.2.0",
    "cavv": "AAABCZIhcQAAAABZlyFxAAAAAAA=",
    "eci": "05",
    "directory_response": "C",
    "authentication_response": "Y",
    "directory_transaction_id": "c4e59ceb-a382-4d6a-bc87-385d591fa09d",
}

# --- the document --------------------------------------------------------------------------------------------


@cache
def _document() -> dict[str, Any]:
    if not REFERENCE.exists():
        pytest.skip(f"the upstream document is not at {REFERENCE}")
    document: dict[str, Any] = json.loads(REFERENCE.read_text())
    return document


def _formats() -> FormatChecker:
    """The formats the document uses, checked strictly (jsonschema checks `date-time` only with an extra package)."""
    checker = FormatChecker(["uuid", "email"])

    @checker.checks("date-time", raises=ValueError)
    def is_date_time(value: object) -> bool:
        return not isinstance(value, str) or datetime.fromisoformat(value).tzinfo is not None

    @checker.checks("date", raises=ValueError)
    def is_date(value: object) -> bool:
        return not isinstance(value, str) or bool(date.fromisoformat(value))

    @checker.checks("json-pointer")
    def is_pointer(value: object) -> bool:
        return not isinstance(value, str) or value == "" or value.startswith("/")

    return checker


@cache
def _registry() -> Registry:
    resource = Resource.from_contents(_document(), default_specification=DRAFT202012)
    return Registry().with_resource(DOCUMENT_URI, resource)


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


# Fields the official SDK requires in an answer that the (older) upstream document does not list, by object type:
# answered, and left out of this check.
SDK_ONLY_FIELDS = {"payment-service": {"refund_ingestion_enabled"}}


def _without_sdk_only_fields(body: Any) -> Any:
    if isinstance(body, list):
        return [_without_sdk_only_fields(item) for item in body]
    if not isinstance(body, dict):
        return body
    extra = SDK_ONLY_FIELDS.get(body.get("type"), set()) if isinstance(body.get("type"), str) else set()
    return {key: _without_sdk_only_fields(value) for key, value in body.items() if key not in extra}


def validate(path: str, method: str, response: Any) -> None:
    """Validate `response` against the schema the document gives `method path` for its status."""
    operation = _document()["paths"][path][method.lower()]
    status = str(response.status_code)
    assert status in operation["responses"], f"{method} {path} never answers {status} upstream: {response.content!r}"
    content = operation["responses"][status].get("content")
    if content is None:
        assert not response.content, f"{method} {path} {status} has a body upstream does not have"
        return
    pointer = "/".join(["#", "paths", _escape(path), method.lower(), "responses", status, "content"])
    schema = {"$ref": f"{DOCUMENT_URI}{pointer}/{_escape('application/json')}/schema"}
    validator = Draft202012Validator(schema, registry=_registry(), format_checker=_formats())
    body = _without_sdk_only_fields(response.json())
    errors = sorted(validator.iter_errors(body), key=lambda error: list(error.absolute_path))
    assert not errors, f"{method} {path} {status}:\n" + "\n".join(
        f"  at /{'/'.join(map(str, error.absolute_path))}: {error.message[:300]}" for error in errors[:10]
    )


# --- the scenarios -------------------------------------------------------------------------------------------


@dataclass
class World:
    """Clients with the scopes each scenario needs, and the account's objects."""

    client: APIClient
    read_only: APIClient
    anonymous: APIClient
    embed: APIClient
    account: Any

    def post(self, path: str, payload: object = None, **headers: str) -> Any:
        return self.client.post(path, payload, format="json", **headers)

    def put(self, path: str, payload: object) -> Any:
        return self.client.put(path, payload, format="json")


@pytest.fixture
def world(api_client, merchant_account, settings) -> World:
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
    )


def _transaction(world: World, **fields: Any) -> Any:
    return world.post(
        "/transactions", {"amount": 1299, "currency": "USD", "payment_method": CARD, **SDK_DEFAULTS, **fields}
    )


def _authorized(world: World) -> Any:
    return TransactionFactory(merchant_account=world.account, authorized=True)


def _captured(world: World) -> Any:
    return TransactionFactory(merchant_account=world.account, captured=True)


BILLING = {
    "first_name": "Ada",
    "last_name": "Lovelace",
    "email_address": "ada@example.com",
    "phone_number": "+442071234567",
    "address": {"city": "London", "country": "GB", "postal_code": "N1 9GU", "line1": "1 Main St"},
    "tax_id": {"value": "GB123456789", "kind": "gb.vat"},
}
BODY_999 = {"amount": 999, "currency": "USD", "payment_method": CARD, **SDK_DEFAULTS}

SHIPPING = {key: value for key, value in BILLING.items() if key != "tax_id"}


def _buyer(world: World, *, shipping_details: int = 0) -> Any:
    buyer = BuyerFactory(merchant_account=world.account)
    ShippingDetailsFactory.create_batch(shipping_details, buyer=buyer, **SHIPPING)
    return buyer.pk


def _shipping_details(world: World) -> tuple[Any, Any]:
    details = ShippingDetailsFactory(buyer=BuyerFactory(merchant_account=world.account), **SHIPPING)
    return details.buyer_id, details.pk


def _shipping_to(buyer_id: Any, details_id: Any) -> dict[str, str]:
    return {"buyer_id": str(buyer_id), "shipping_details_id": str(details_id)}


def _shipping_path(buyer_id: Any, details_id: Any = None) -> str:
    return f"/buyers/{buyer_id}/shipping-details" + ("" if details_id is None else f"/{details_id}")


Scenario = Callable[[World], Any]
# (upstream path, method, what the scenario shows, the request)
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
    # transactions
    (
        "/transactions",
        "GET",
        "page",
        lambda w: (_captured(w), _authorized(w), _transaction(w, gift_cards=None), w.client.get("/transactions"))[-1],
    ),
    ("/transactions", "GET", "unknown-filter", lambda w: w.client.get("/transactions", {"bogus_filter": 1})),
    ("/transactions", "POST", "authorized", lambda w: _transaction(w, intent="authorize")),
    ("/transactions", "POST", "captured", lambda w: _transaction(w, intent="capture")),
    ("/transactions", "POST", "declined", lambda w: _transaction(w, payment_method=DECLINED_CARD)),
    (
        "/transactions",
        "POST",
        "everything",
        lambda w: _transaction(
            w,
            three_d_secure_data=THREE_D_SECURE,
            statement_descriptor={"name": "TEA SHOP", "city": "London"},
            buyer={
                "display_name": "Ada",
                "billing_details": BILLING,
                "shipping_details": {"first_name": "Ada", "address": BILLING["address"]},
            },
            cart_items=[{"name": "Tea", "quantity": 1, "unit_amount": 1299}],
            airline={"booking_code": "ABC123", "legs": [{"departure_airport": "LHR", "arrival_airport": "JFK"}]},
            metadata={"order": "1"},
            recipient={"first_name": "Ada", "last_name": "Lovelace", "date_of_birth": "1815-12-10"},
            installment_count=2,
            tax_amount=100,
            merchant_tax_id="GB1",
            external_identifier="order-1",
            country="GB",
        ),
    ),
    (
        "/transactions",
        "POST",
        "gift-cards-only",
        lambda w: _transaction(
            w,
            amount=500,
            payment_method=None,
            gift_cards=[{**_number_and_pin(IssuedGiftCardFactory(merchant_account=w.account)), "amount": 500}],
        ),
    ),
    (
        "/transactions",
        "POST",
        "split-tender",
        lambda w: _transaction(
            w,
            gift_cards=[{**_number_and_pin(IssuedGiftCardFactory(merchant_account=w.account)), "amount": 500}],
        ),
    ),
    (
        "/transactions",
        "POST",
        "with-shipping-details",
        lambda w: _transaction(w, **_shipping_to(*_shipping_details(w))),
    ),
    (
        "/transactions",
        "POST",
        "missing",
        lambda w: _transaction(w, **_shipping_to(_buyer(w), _shipping_details(w)[1])),
    ),
    ("/transactions", "POST", "invalid", lambda w: _transaction(w, amount=-1, store=True)),
    ("/transactions", "POST", "embed-pin-differs", lambda w: w.embed.post("/transactions", BODY_999, format="json")),
    (
        "/transactions",
        "POST",
        "rate-limited",
        lambda w: [w.embed.post("/transactions", BODY_999, format="json") for _ in range(3)][-1],
    ),
    ("/transactions", "POST", "wrong-scope", lambda w: w.read_only.post("/transactions", BODY_999, format="json")),
    ("/transactions/{transaction_id}", "GET", "found", lambda w: w.client.get(f"/transactions/{_captured(w).pk}")),
    ("/transactions/{transaction_id}", "GET", "missing", lambda w: w.client.get(f"/transactions/{uuid.uuid4()}")),
    (
        "/transactions/{transaction_id}",
        "PUT",
        "updated",
        lambda w: w.put(f"/transactions/{_authorized(w).pk}", {"metadata": {"a": "b"}, "external_identifier": "x"}),
    ),
    (
        "/transactions/{transaction_id}",
        "PUT",
        "invalid",
        lambda w: w.put(f"/transactions/{_authorized(w).pk}", {"status": "capture_succeeded"}),
    ),
    (
        "/transactions/{transaction_id}/capture",
        "POST",
        "transaction",
        lambda w: w.post(f"/transactions/{_authorized(w).pk}/capture", {"final": True}),
    ),
    (
        "/transactions/{transaction_id}/capture",
        "POST",
        "wrapper",
        lambda w: w.post(f"/transactions/{_authorized(w).pk}/capture", {}, HTTP_PREFER="resource=transaction-capture"),
    ),
    (
        "/transactions/{transaction_id}/capture",
        "POST",
        "conflict",
        lambda w: w.post(f"/transactions/{_captured(w).pk}/capture", {}),
    ),
    (
        "/transactions/{transaction_id}/void",
        "POST",
        "transaction",
        lambda w: w.client.post(f"/transactions/{_authorized(w).pk}/void"),
    ),
    (
        "/transactions/{transaction_id}/void",
        "POST",
        "wrapper",
        lambda w: w.client.post(f"/transactions/{_authorized(w).pk}/void", HTTP_PREFER="resource=transaction-void"),
    ),
    (
        "/transactions/{transaction_id}/cancel",
        "POST",
        "canceled",
        lambda w: w.client.post(f"/transactions/{TransactionFactory(merchant_account=w.account).pk}/cancel"),
    ),
    (
        "/transactions/{transaction_id}/cancel",
        "POST",
        "conflict",
        lambda w: w.client.post(f"/transactions/{_captured(w).pk}/cancel"),
    ),
    (
        "/transactions/{transaction_id}/refunds",
        "GET",
        "list",
        lambda w: w.client.get(
            f"/transactions/{RefundFactory(transaction__merchant_account=w.account).transaction_id}/refunds"
        ),
    ),
    (
        "/transactions/{transaction_id}/refunds",
        "POST",
        "created",
        lambda w: w.post(f"/transactions/{_captured(w).pk}/refunds", {"amount": 100, "reason": "r"}),
    ),
    (
        "/transactions/{transaction_id}/refunds",
        "POST",
        "invalid",
        lambda w: w.post(f"/transactions/{_captured(w).pk}/refunds", {"reason": "r" * 101}),
    ),
    (
        "/transactions/{transaction_id}/refunds/all",
        "POST",
        "created",
        lambda w: w.client.post(f"/transactions/{_captured(w).pk}/refunds/all"),
    ),
    (
        "/transactions/{transaction_id}/refunds/all",
        "POST",
        "nothing-left",
        lambda w: w.client.post(f"/transactions/{_authorized(w).pk}/refunds/all"),
    ),
    (
        "/transactions/{transaction_id}/refunds/{refund_id}",
        "GET",
        "found",
        lambda w: _refund_path(w, lambda refund: f"/transactions/{refund.transaction_id}/refunds/{refund.pk}"),
    ),
    ("/refunds/{refund_id}", "GET", "found", lambda w: _refund_path(w, lambda refund: f"/refunds/{refund.pk}")),
    ("/refunds/{refund_id}", "GET", "missing", lambda w: w.client.get(f"/refunds/{uuid.uuid4()}")),
    # more error shapes
    ("/buyers/{buyer_id}", "DELETE", "missing", lambda w: w.client.delete(f"/buyers/{uuid.uuid4()}")),
    ("/buyers/{buyer_id}", "PUT", "invalid", lambda w: w.put(f"/buyers/{uuid.uuid4()}", {"display_name": 5})),
    ("/gift-cards", "GET", "bad-filter", lambda w: w.client.get("/gift-cards", {"buyer_id": "nope"})),
    (
        "/gift-cards",
        "POST",
        "wrong-pin",
        lambda w: w.post("/gift-cards", {"number": "6035710000000099999", "pin": "1"}),
    ),
    ("/gift-cards/{gift_card_id}", "DELETE", "missing", lambda w: w.client.delete(f"/gift-cards/{uuid.uuid4()}")),
    (
        "/checkout/sessions/{session_id}",
        "DELETE",
        "missing",
        lambda w: w.client.delete(f"/checkout/sessions/{uuid.uuid4()}"),
    ),
    (
        "/checkout/sessions/{session_id}",
        "PUT",
        "invalid",
        lambda w: w.put(f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=w.account).pk}", {"amount": -1}),
    ),
    (
        "/checkout/sessions/{session_id}/fields",
        "PUT",
        "missing",
        lambda w: w.anonymous.put(f"/checkout/sessions/{uuid.uuid4()}/fields", {"payment_method": CARD}, format="json"),
    ),
    (
        "/transactions/{transaction_id}/capture",
        "POST",
        "missing",
        lambda w: w.post(f"/transactions/{uuid.uuid4()}/capture", {}),
    ),
    (
        "/transactions/{transaction_id}/capture",
        "POST",
        "invalid",
        lambda w: w.post(f"/transactions/{_authorized(w).pk}/capture", {"amount": 0}),
    ),
    (
        "/transactions/{transaction_id}/void",
        "POST",
        "conflict",
        lambda w: w.client.post(f"/transactions/{_captured(w).pk}/void"),
    ),
    (
        "/transactions/{transaction_id}/refunds",
        "POST",
        "conflict",
        lambda w: w.post(f"/transactions/{_authorized(w).pk}/refunds", {}),
    ),
    (
        "/transactions/{transaction_id}/refunds/{refund_id}",
        "GET",
        "missing",
        lambda w: w.client.get(f"/transactions/{_captured(w).pk}/refunds/{uuid.uuid4()}"),
    ),
    (
        "/transactions/{transaction_id}/refunds/all",
        "POST",
        "invalid",
        lambda w: w.post(f"/transactions/{_captured(w).pk}/refunds/all", {"reason": 5}),
    ),
    (
        "/transactions",
        "POST",
        "checkout-session",
        lambda w: _transaction(
            w,
            payment_method={
                "method": "checkout-session",
                "id": str(CheckoutSessionFactory(merchant_account=w.account, with_card=True, intent="capture").pk),
            },
        ),
    ),
]


# Nothing listens there: no delivery is attempted by these tests, and the host is allowed below (no DNS here).
RECEIVER = "http://127.0.0.1:9/payments"


def _subscription(world: World) -> Any:
    return subscription_for(world.account, RECEIVER)


def _with_history(world: World) -> Any:
    """A transaction with events recorded by the services, as a real one has."""
    created = _transaction(world)
    assert created.status_code == 201, created.content
    return created.json()["id"]


SCENARIOS += [
    # transaction history
    (
        "/transactions/{transaction_id}/events",
        "GET",
        "page",
        lambda w: w.client.get(f"/transactions/{_with_history(w)}/events"),
    ),
    (
        "/transactions/{transaction_id}/events",
        "GET",
        "missing",
        lambda w: w.client.get(f"/transactions/{uuid.uuid4()}/events"),
    ),
    (
        "/transactions/{transaction_id}/actions",
        "GET",
        "empty",
        lambda w: w.client.get(f"/transactions/{_with_history(w)}/actions"),
    ),
    (
        "/transactions/{transaction_id}/sync",
        "POST",
        "synced",
        lambda w: w.client.post(f"/transactions/{_with_history(w)}/sync"),
    ),
    (
        "/transactions/{transaction_id}/sync",
        "POST",
        "missing",
        lambda w: w.client.post(f"/transactions/{uuid.uuid4()}/sync"),
    ),
    # payment options
    (
        "/payment-options",
        "POST",
        "card-and-gift-cards",
        lambda w: (
            IssuedGiftCardFactory(merchant_account=w.account, currency="USD"),
            w.post("/payment-options", {"amount": 1299, "currency": "USD", "country": "US", "locale": "en"}),
        )[1],
    ),
    ("/payment-options", "POST", "embed", lambda w: w.embed.post("/payment-options", {}, format="json")),
    ("/payment-options", "POST", "invalid", lambda w: w.post("/payment-options", {"metadata": {"cohort": "a"}})),
    ("/payment-options", "POST", "wrong-scope", lambda w: w.read_only.post("/payment-options", {}, format="json")),
    (
        "/payment-options",
        "POST",
        "embed-pin-differs",
        lambda w: w.embed.post("/payment-options", {"currency": "EUR"}, format="json"),
    ),
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


def _number_and_pin(card: Any) -> dict[str, str]:
    return {"number": card.number, "pin": card.pin}


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

SCENARIOS += [
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
        lambda w: w.post("/payment-services/verify", {"payment_service_definition_id": "mock-card", "fields": []}),
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


def _refund_path(world: World, path: Callable[[Any], str]) -> Any:
    return world.client.get(path(RefundFactory(transaction__merchant_account=world.account)))


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

    assert covered | ALWAYS_REFUSED == implemented
