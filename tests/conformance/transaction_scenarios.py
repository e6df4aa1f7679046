"""Scenarios of transactions and refunds, their history, payment options, and more error shapes."""

from __future__ import annotations

import re
import uuid
from io import StringIO
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.core.management import call_command
from django.test import Client

from checkout.tests.factories import CheckoutSessionFactory
from giftcards.tests.factories import IssuedGiftCardFactory
from paymentmethods.tests.factories import PaymentMethodFactory
from paymentservices.models import PaymentService
from paymentservices.services import payment_service_update
from tests.conformance.world import (
    BILLING,
    BODY_999,
    CARD,
    DECLINED_CARD,
    THREE_D_SECURE,
    Scenario,
    World,
    _authorized,
    _buyer,
    _captured,
    _number_and_pin,
    _refund_path,
    _shipping_details,
    _shipping_to,
    _transaction,
)
from transactions.tests.factories import CaptureFactory, RefundFactory, TransactionFactory

USD = {"currency": "USD"}
BIN_SAMPLE = Path(__file__).resolve().parents[2] / "payments" / "bins" / "data" / "sample-ranges.csv"


def _capture_path(world: World, path: Any) -> Any:
    return world.client.get(path(CaptureFactory(transaction__merchant_account=world.account)))


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
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
        "/transactions/{transaction_id}/capture",
        "POST",
        "not-final",
        lambda w: w.post(
            f"/transactions/{_authorized(w).pk}/capture",
            {"amount": 100, "final": False},
            HTTP_PREFER="resource=transaction-capture",
        ),
    ),
    (
        "/transactions/{transaction_id}/authorization/increment",
        "POST",
        "succeeded",
        lambda w: w.post(f"/transactions/{_authorized(w).pk}/authorization/increment", {"amount": 100}),
    ),
    (
        "/transactions/{transaction_id}/authorization/increment",
        "POST",
        "invalid",
        lambda w: w.post(f"/transactions/{_authorized(w).pk}/authorization/increment", {"amount": -1}),
    ),
    (
        "/transactions/{transaction_id}/authorization/increment",
        "POST",
        "conflict",
        lambda w: w.post(f"/transactions/{_captured(w).pk}/authorization/increment", {"amount": 100}),
    ),
    (
        "/transactions/{transaction_id}/authorization/increment",
        "POST",
        "missing",
        lambda w: w.post(f"/transactions/{uuid.uuid4()}/authorization/increment", {"amount": 100}),
    ),
    (
        "/transactions/{transaction_id}/captures",
        "GET",
        "list",
        lambda w: w.client.get(
            f"/transactions/{CaptureFactory(transaction__merchant_account=w.account).transaction_id}/captures"
        ),
    ),
    (
        "/transactions/{transaction_id}/captures",
        "GET",
        "missing",
        lambda w: w.client.get(f"/transactions/{uuid.uuid4()}/captures"),
    ),
    (
        "/transactions/{transaction_id}/captures/{capture_id}",
        "GET",
        "found",
        lambda w: _capture_path(w, lambda capture: f"/transactions/{capture.transaction_id}/captures/{capture.pk}"),
    ),
    (
        "/transactions/{transaction_id}/captures/{capture_id}",
        "GET",
        "missing",
        lambda w: w.client.get(f"/transactions/{_captured(w).pk}/captures/{uuid.uuid4()}"),
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
    # card details (docs/card-details.md)
    (
        "/card-details",
        "GET",
        "from-the-table",
        lambda w: (_bin_table(), w.client.get("/card-details", {"currency": "USD", "bin": "41111111"}))[1],
    ),
    (
        "/card-details",
        "GET",
        "unknown-bin",
        lambda w: w.client.get("/card-details", {"currency": "USD", "bin": "999999"}),
    ),
    (
        "/card-details",
        "GET",
        "stored-method",
        lambda w: (
            _bin_table(),
            w.client.get(
                "/card-details",
                {"currency": "USD", "payment_method_id": str(PaymentMethodFactory(merchant_account=w.account).pk)},
            ),
        )[1],
    ),
    ("/card-details", "GET", "embed", lambda w: w.embed.get("/card-details", {"currency": "USD", "bin": "411111"})),
    ("/card-details", "GET", "invalid", lambda w: w.client.get("/card-details", {"currency": "USD", "bin": "4111"})),
    (
        "/card-details",
        "GET",
        "wrong-scope",
        lambda w: w.read_only.get("/card-details", {"currency": "USD", "bin": "411111"}),
    ),
    (
        "/checkout/sessions/{session_id}/card-details",
        "POST",
        "from-the-table",
        lambda w: (
            _bin_table(),
            w.anonymous.post(
                f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=w.account).pk}/card-details",
                {"bin": "41111111"},
                format="json",
            ),
        )[1],
    ),
    (
        "/checkout/sessions/{session_id}/card-details",
        "POST",
        "invalid",
        lambda w: w.anonymous.post(
            f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=w.account).pk}/card-details",
            {"bin": "4111111111111111"},
            format="json",
        ),
    ),
    (
        "/checkout/sessions/{session_id}/card-details",
        "POST",
        "missing",
        lambda w: w.anonymous.post(f"/checkout/sessions/{uuid.uuid4()}/card-details", {"bin": "411111"}, format="json"),
    ),
]


# Operations this server implements only to refuse by name: no processor here has what they return.
ALWAYS_REFUSED = {
    ("/transactions/{transaction_id}/session", "POST"),
    ("/checkout/sessions/{session_id}/acquirer", "GET"),
}
SCENARIOS += [
    (
        "/transactions/{transaction_id}/session",
        "POST",
        "unsupported",
        lambda w: w.post(f"/transactions/{TransactionFactory(merchant_account=w.account).pk}/session", {}),
    ),
    (
        "/transactions/{transaction_id}/session",
        "POST",
        "missing",
        lambda w: w.post(f"/transactions/{uuid.uuid4()}/session", {}),
    ),
    (
        "/checkout/sessions/{session_id}/acquirer",
        "GET",
        "unsupported",
        lambda w: w.anonymous.get(
            f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=w.account).pk}/acquirer"
        ),
    ),
    (
        "/checkout/sessions/{session_id}/acquirer",
        "GET",
        "missing",
        lambda w: w.anonymous.get(f"/checkout/sessions/{uuid.uuid4()}/acquirer"),
    ),
]


def _bin_table() -> None:
    """The BIN table with the sample file's ranges (docs/card-details.md)."""
    call_command("refresh_bin_table", str(BIN_SAMPLE), stdout=StringIO())


# --- 3-D Secure run by this server (docs/three-d-secure.md) ----------------------------------------------------
REDIRECT_URL = "https://shop.example/return"


def _three_d_secure(world: World, number: str, *, redirect_url: str | None = REDIRECT_URL) -> Any:
    """A payment to the account's sandbox with 3-D Secure on, with one of the default 3-D Secure test cards."""
    service = PaymentService.objects.get(merchant_account=world.account, definition_id="mock-card")
    payment_service_update(service=service, three_d_secure_enabled=True)
    card = {**CARD, "number": number, **({"redirect_url": redirect_url} if redirect_url else {})}
    return _transaction(world, payment_method=card)


def _challenge_completed(world: World) -> str:
    """A challenged payment whose buyer passed the challenge on its page: its history has every 3-D Secure step."""
    created = _three_d_secure(world, "4000000000003220").json()
    page_path = urlsplit(created["payment_method"]["approval_url"]).path
    browser = Client()
    page = browser.get(page_path).content.decode()
    form_token = re.search(r'name="form_token" value="([^"]+)"', page)
    assert form_token is not None, page
    assert browser.post(page_path, {"form_token": form_token.group(1), "action": "complete"}).status_code == 303
    return str(created["id"])


SCENARIOS += [
    ("/transactions", "POST", "3ds-frictionless", lambda w: _three_d_secure(w, "4000000000003055")),
    ("/transactions", "POST", "3ds-refused", lambda w: _three_d_secure(w, "4000000000003022")),
    ("/transactions", "POST", "3ds-timeout", lambda w: _three_d_secure(w, "4000000000003006")),
    ("/transactions", "POST", "3ds-challenge", lambda w: _three_d_secure(w, "4000000000003220")),
    (
        "/transactions",
        "POST",
        "missing-redirect-url",
        lambda w: _three_d_secure(w, "4000000000003220", redirect_url=None),
    ),
    (
        "/transactions/{transaction_id}",
        "GET",
        "3ds-challenge-completed",
        lambda w: w.client.get(f"/transactions/{_challenge_completed(w)}"),
    ),
    (
        "/transactions/{transaction_id}/events",
        "GET",
        "3ds-challenge-completed",
        lambda w: w.client.get(f"/transactions/{_challenge_completed(w)}/events"),
    ),
]
