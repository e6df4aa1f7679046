"""Scenarios of a stored method's network tokens and the account updater: the list answers, every other operation is
refused by name (no network token service is configured)."""

from __future__ import annotations

import uuid
from typing import Any

from paymentmethods.tests.factories import PaymentMethodFactory
from tests.conformance.world import Scenario, World

TOKENS = "/payment-methods/{payment_method_id}/network-tokens"
TOKEN = f"{TOKENS}/{{network_token_id}}"


def _tokens(world: World) -> str:
    method: Any = PaymentMethodFactory(merchant_account=world.account)
    return f"/payment-methods/{method.pk}/network-tokens"


def _token(world: World) -> str:
    return f"{_tokens(world)}/{uuid.uuid4()}"


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    (TOKENS, "GET", "none-held", lambda w: w.client.get(_tokens(w))),
    (TOKENS, "GET", "missing", lambda w: w.client.get(f"/payment-methods/{uuid.uuid4()}/network-tokens")),
    (TOKENS, "GET", "wrong-scope", lambda w: w.read_only.get(_tokens(w))),
    (
        TOKENS,
        "POST",
        "unsupported",
        lambda w: w.post(_tokens(w), {"merchant_initiated": False, "is_subsequent_payment": False}),
    ),
    (TOKENS, "POST", "missing", lambda w: w.post(f"/payment-methods/{uuid.uuid4()}/network-tokens", {})),
    (TOKEN, "DELETE", "unsupported", lambda w: w.client.delete(_token(w))),
    (f"{TOKEN}/suspend", "POST", "unsupported", lambda w: w.client.post(f"{_token(w)}/suspend")),
    (f"{TOKEN}/resume", "POST", "unsupported", lambda w: w.client.post(f"{_token(w)}/resume")),
    (
        f"{TOKEN}/cryptogram",
        "POST",
        "unsupported",
        lambda w: w.post(f"{_token(w)}/cryptogram", {"merchant_initiated": False}),
    ),
    (
        "/account-updater/jobs",
        "POST",
        "unsupported",
        lambda w: w.post("/account-updater/jobs", {"payment_method_ids": [str(uuid.uuid4())]}),
    ),
    ("/account-updater/jobs", "POST", "no-token", lambda w: w.anonymous.post("/account-updater/jobs")),
]
# Operations this server implements only to refuse by name: no network token service is configured.
ALWAYS_REFUSED = {
    (TOKENS, "POST"),
    (TOKEN, "DELETE"),
    (f"{TOKEN}/suspend", "POST"),
    (f"{TOKEN}/resume", "POST"),
    (f"{TOKEN}/cryptogram", "POST"),
    ("/account-updater/jobs", "POST"),
}
