"""What the benchmark drives: one `Case` per endpoint and request, and what a run of one measured."""

from dataclasses import dataclass, field

from bench.fixtures import DEEP_OFFSET, SUBSCRIBED_ACCOUNT


@dataclass
class Case:
    """One endpoint and request, driven by wrk against one server."""

    name: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    method: str = "GET"
    body: str | None = None
    server: str = "main"
    unique_header: str | None = None  # a header wrk fills with a fresh value per request (Idempotency-Key)


@dataclass
class Result:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    bad: int
    app_cpu_ms: float = 0.0  # gunicorn workers' CPU time per request
    db_cpu_ms: float = 0.0  # PostgreSQL backends' CPU time per request

    @property
    def rps(self) -> float:
        return self.requests / self.seconds


# --- cases -----------------------------------------------------------------------------------------


def buyer_cases(fixtures: dict[str, str]) -> list[Case]:
    auth = {"Authorization": f"Bearer {fixtures['token']}"}
    return [
        Case("ours", "/buyers?limit=20", auth),
        Case("ours @900k", f"/buyers?{fixtures['ours_deep']}", auth),
        Case("peer", "/bench/peer/buyers?limit=20", auth),
        Case("peer @900k", f"/bench/peer/buyers?{fixtures['peer_deep']}", auth),
        Case("offset peer", "/bench/offset-peer/buyers?limit=20&offset=0", auth),
        Case("offset peer @900k", f"/bench/offset-peer/buyers?limit=20&offset={DEEP_OFFSET}", auth),
        Case("floor", "/bench/floor/buyers?limit=20", {}),
        Case("floor @900k", f"/bench/floor/buyers?{fixtures['floor_deep']}", {}),
        Case("bare floor", "/bare/buyers?limit=20", {}, server="bare"),
        Case("bare floor @900k", f"/bare/buyers?{fixtures['floor_deep']}", {}, server="bare"),
    ]


def transaction_cases(fixtures: dict[str, str]) -> list[Case]:
    """A card authorization through the sandbox connector, each with its own Idempotency-Key."""
    if "transaction_body" not in fixtures:
        return []
    headers = {"Authorization": f"Bearer {fixtures['transactions_token']}", "Content-Type": "application/json"}
    subscribed = {
        "Authorization": f"Bearer {fixtures['subscribed_token']}",
        "Content-Type": "application/json",
        "x-gr4vy-merchant-account-id": SUBSCRIBED_ACCOUNT,
    }
    body, key = fixtures["transaction_body"], "Idempotency-Key"
    return [
        Case("create transaction", "/transactions", headers, "POST", body, unique_header=key),
        Case("create, subscribed", "/transactions", subscribed, "POST", body, unique_header=key),
        Case("write floor", "/bare/transactions", {"Content-Type": "application/json"}, "POST", body, "bare", key),
    ]


def gift_card_cases(fixtures: dict[str, str]) -> list[Case]:
    """One balance check with an embed token, counted by the rate limiter and with limits switched off."""
    if "embed_token" not in fixtures:
        return []
    headers = {"Authorization": f"Bearer {fixtures['embed_token']}", "Content-Type": "application/json"}
    body = fixtures["balance_body"]
    return [
        Case("balances limited", "/gift-cards/balances", headers, "POST", body),
        Case("balances limits off", "/gift-cards/balances", headers, "POST", body, server="limits-off"),
    ]
