"""Scenarios of a stored method's payment service tokens: kept at the sandbox, refused, listed, filtered, deleted."""

from __future__ import annotations

import uuid
from typing import Any

from paymentmethods.tests.factories import PaymentMethodFactory
from paymentservices.models import PaymentService
from tests.conformance.world import Scenario, World

TOKENS = "/payment-methods/{payment_method_id}/payment-service-tokens"
TOKEN = f"{TOKENS}/{{payment_service_token_id}}"


def _tokens(world: World, number: str = "4111111111111111") -> str:
    method: Any = PaymentMethodFactory(merchant_account=world.account, number=number)
    return f"/payment-methods/{method.pk}/payment-service-tokens"


def _sandbox(world: World) -> str:
    return str(PaymentService.objects.get(merchant_account=world.account, definition_id="mock-card").pk)


def _body(world: World) -> dict[str, str]:
    return {"payment_service_id": _sandbox(world), "redirect_url": "https://shop.example/back"}


def _kept(world: World) -> tuple[str, str]:
    url = _tokens(world)
    return url, world.post(url, _body(world)).json()["id"]


def _listed(world: World) -> Any:
    url, _ = _kept(world)
    return world.client.get(url)


def _deleted(world: World) -> Any:
    url, token_id = _kept(world)
    return world.client.delete(f"{url}/{token_id}")


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    (TOKENS, "GET", "listed", _listed),
    (TOKENS, "GET", "none", lambda w: w.client.get(_tokens(w))),
    (TOKENS, "GET", "filtered", lambda w: w.client.get(_tokens(w), {"payment_service_id": _sandbox(w)})),
    (TOKENS, "GET", "bad-filter", lambda w: w.client.get(_tokens(w), {"payment_service_id": "x"})),
    (TOKENS, "GET", "missing", lambda w: w.client.get(f"/payment-methods/{uuid.uuid4()}/payment-service-tokens")),
    (TOKENS, "GET", "wrong-scope", lambda w: w.read_only.get(_tokens(w))),
    (TOKENS, "POST", "kept", lambda w: w.post(_tokens(w), _body(w))),
    (TOKENS, "POST", "refused-by-the-issuer", lambda w: w.post(_tokens(w, "4000000000000002"), _body(w))),
    (TOKENS, "POST", "invalid", lambda w: w.post(_tokens(w), {"payment_service_id": _sandbox(w)})),
    (TOKENS, "POST", "unknown-field", lambda w: w.post(_tokens(w), {**_body(w), "number": "4111111111111111"})),
    (TOKENS, "POST", "duplicate", lambda w: w.post(_kept(w)[0], _body(w))),
    (TOKEN, "DELETE", "deleted", _deleted),
    (TOKEN, "DELETE", "missing", lambda w: w.client.delete(f"{_tokens(w)}/{uuid.uuid4()}")),
]
