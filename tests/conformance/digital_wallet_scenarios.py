"""Scenarios of digital wallets: registered, listed, read, changed, deleted; domains added and removed; Apple Pay's
session from a validation server the scenario starts, Google Pay's; Click to Pay and Paze refused."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

from digitalwallets.services import digital_wallet_certificate_upload
from digitalwallets.tests.factories import TestAuthority, register
from digitalwallets.tests.validation import serving
from tests.conformance.world import Scenario, World

APPLE = {"provider": "apple", "merchant_name": "Acme Shop", "accept_terms_and_conditions": True}
WALLET = "/digital-wallets/{digital_wallet_id}"
DOMAINS = f"{WALLET}/domains"
REFUSED_SESSIONS = [
    ("/digital-wallets/click-to-pay/session", {"checkout_session_id": "4137b1cf-39ac-42a8-bad6-1c680d5dab6b"}),
    ("/digital-wallets/paze/session", {"source": "web", "domain_name": "shop.example.com"}),
    ("/digital-wallets/paze/session/create", {}),
    ("/digital-wallets/paze/session/review", {}),
    ("/digital-wallets/paze/session/complete", {}),
]
ALWAYS_REFUSED = {(path, "POST") for path, _ in REFUSED_SESSIONS}


def _wallet(w: World, provider: str = "apple") -> Any:
    return register(w.account, provider=provider)


def _apple_session(w: World) -> Any:
    authority = TestAuthority()
    wallet = _wallet(w)
    identity = wallet.keys.get(purpose="apple-merchant-identity")
    digital_wallet_certificate_upload(wallet=wallet, certificate=authority.sign_csr(identity))
    with tempfile.TemporaryDirectory() as directory, serving(authority, Path(directory)) as server:
        body = {"validation_url": server.url, "domain_name": "shop.example.com"}
        return w.post("/digital-wallets/apple/session", body)


def _full(w: World) -> Any:
    address = {"line1": "1 Main St", "line2": None, "city": "San Jose", "state_code": "US-CA", "postal_code": "95113"}
    return w.post(
        "/digital-wallets",
        {
            **APPLE,
            "merchant_display_name": "Acme",
            "merchant_url": "https://shop.example.com",
            "merchant_country_code": "US",
            "merchant_category_code": "5411",
            "address": address,
            "domain_names": ["shop.example.com"],
        },
    )


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    ("/digital-wallets", "POST", "apple", _full),
    ("/digital-wallets", "POST", "google", lambda w: w.post("/digital-wallets", {**APPLE, "provider": "google"})),
    ("/digital-wallets", "POST", "invalid", lambda w: w.post("/digital-wallets", {**APPLE, "merchant_name": ""})),
    ("/digital-wallets", "POST", "unsupported", lambda w: w.post("/digital-wallets", {**APPLE, "provider": "paze"})),
    ("/digital-wallets", "POST", "duplicate", lambda w: (_wallet(w), w.post("/digital-wallets", APPLE))[1]),
    ("/digital-wallets", "POST", "unknown-field", lambda w: w.post("/digital-wallets", {**APPLE, "surprise": 1})),
    ("/digital-wallets", "POST", "wrong-scope", lambda w: w.read_only.post("/digital-wallets", {}, format="json")),
    (
        "/digital-wallets",
        "GET",
        "list",
        lambda w: (_wallet(w), _wallet(w, "google"), w.client.get("/digital-wallets"))[2],
    ),
    ("/digital-wallets", "GET", "no-token", lambda w: w.anonymous.get("/digital-wallets")),
    (WALLET, "GET", "one", lambda w: w.client.get(f"/digital-wallets/{_wallet(w).pk}")),
    (WALLET, "GET", "missing", lambda w: w.client.get(f"/digital-wallets/{uuid.uuid4()}")),
    (WALLET, "PUT", "update", lambda w: w.put(f"/digital-wallets/{_wallet(w).pk}", {"merchant_display_name": "A"})),
    (WALLET, "PUT", "invalid", lambda w: w.put(f"/digital-wallets/{_wallet(w).pk}", {"merchant_country_code": "u"})),
    (WALLET, "DELETE", "delete", lambda w: w.client.delete(f"/digital-wallets/{_wallet(w).pk}")),
    (WALLET, "DELETE", "missing", lambda w: w.client.delete(f"/digital-wallets/{uuid.uuid4()}")),
    (
        DOMAINS,
        "POST",
        "add",
        lambda w: w.post(f"/digital-wallets/{_wallet(w).pk}/domains", {"domain_name": "a.example.com"}),
    ),
    (DOMAINS, "POST", "invalid", lambda w: w.post(f"/digital-wallets/{_wallet(w).pk}/domains", {"domain_name": "a b"})),
    (
        DOMAINS,
        "DELETE",
        "remove",
        lambda w: w.client.delete(
            f"/digital-wallets/{_wallet(w).pk}/domains", {"domain_name": "shop.example.com"}, format="json"
        ),
    ),
    (
        DOMAINS,
        "DELETE",
        "missing",
        lambda w: w.client.delete(
            f"/digital-wallets/{_wallet(w).pk}/domains", {"domain_name": "x.example.com"}, format="json"
        ),
    ),
    ("/digital-wallets/apple/session", "POST", "session", _apple_session),
    (
        "/digital-wallets/apple/session",
        "POST",
        "invalid",
        lambda w: w.post(
            "/digital-wallets/apple/session", {"validation_url": "https://evil.example", "domain_name": "a.example.com"}
        ),
    ),
    (
        "/digital-wallets/google/session",
        "POST",
        "session",
        lambda w: (
            _wallet(w, "google"),
            w.post("/digital-wallets/google/session", {"origin_domain": "shop.example.com"}),
        )[1],
    ),
    (
        "/digital-wallets/google/session",
        "POST",
        "missing",
        lambda w: w.post("/digital-wallets/google/session", {"origin_domain": "shop.example.com"}),
    ),
    *[
        (path, "POST", "unsupported", lambda w, path=path, body=body: w.post(path, body))
        for path, body in REFUSED_SESSIONS
    ],
]
