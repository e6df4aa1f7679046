"""Scenarios of payouts: to a card given once or a stored card, paid, declined and left pending; refused; listed and
read."""

from __future__ import annotations

import uuid
from typing import Any

from paymentmethods.tests.factories import PaymentMethodFactory
from paymentservices.models import PaymentService
from payouts.tests.factories import PayoutFactory
from tests.conformance.world import Scenario, World

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39"}
MERCHANT = {
    "name": "Acme Games",
    "identification_number": "12345",
    "phone_number": "+14155552671",
    "url": "https://acme.example",
    "statement_descriptor": "ACME WINNINGS",
    "merchant_category_code": "7995",
    "address": {"city": "London", "country": "GB", "line1": "1 Main Street"},
}


def _sandbox(w: World) -> PaymentService:
    return PaymentService.objects.get(merchant_account=w.account, definition_id="mock-card")


def _payout(w: World, **fields: Any) -> Any:
    body = {"amount": 1299, "currency": "USD", "payment_service_id": str(_sandbox(w).pk), "payment_method": CARD}
    return w.post("/payouts", {**body, **fields})


def _to_stored_card(w: World) -> Any:
    method = PaymentMethodFactory(merchant_account=w.account)
    return _payout(
        w,
        payment_method={"method": "id", "id": str(method.pk)},
        buyer_id=str(method.buyer_id),
        merchant=MERCHANT,
        category="online_gambling",
        external_identifier="win-1",
    )


def _guest(w: World) -> Any:
    guest = {"display_name": "Ada", "billing_details": {"first_name": "Ada", "last_name": "Lovelace"}}
    return _payout(w, buyer=guest, merchant={**MERCHANT, "address": None})


def _one(w: World) -> Any:
    return PayoutFactory(merchant_account=w.account, payment_service=_sandbox(w))


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    ("/payouts", "POST", "card", lambda w: _payout(w)),
    ("/payouts", "POST", "stored-card", _to_stored_card),
    ("/payouts", "POST", "guest-buyer", _guest),
    ("/payouts", "POST", "declined", lambda w: _payout(w, payment_method={**CARD, "number": "4000000000000127"})),
    ("/payouts", "POST", "invalid", lambda w: _payout(w, amount=-1)),
    ("/payouts", "POST", "invalid", lambda w: _payout(w, amount=99999999)),  # over the account's limit
    ("/payouts", "POST", "unknown-field", lambda w: _payout(w, surprise=True)),
    ("/payouts", "POST", "wrong-scope", lambda w: w.read_only.post("/payouts", {}, format="json")),
    ("/payouts", "GET", "page", lambda w: (_one(w), w.client.get("/payouts"))[1]),
    ("/payouts", "GET", "filtered", lambda w: (_one(w), w.client.get("/payouts?status=succeeded&limit=1"))[1]),
    ("/payouts", "GET", "bad-limit", lambda w: w.client.get("/payouts?limit=0")),
    ("/payouts/{payout_id}", "GET", "one", lambda w: w.client.get(f"/payouts/{_one(w).pk}")),
    ("/payouts/{payout_id}", "GET", "missing", lambda w: w.client.get(f"/payouts/{uuid.uuid4()}")),
]
