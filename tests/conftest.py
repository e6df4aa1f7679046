"""Fixtures for driving the server with the official `gr4vy` SDK, unchanged, over real HTTP."""

from collections.abc import Callable, Iterator

import httpx
import pytest
from gr4vy import Gr4vy, auth


@pytest.fixture(autouse=True)
def _no_sdk_environment(monkeypatch):
    """The SDK reads these; a developer's own settings must not leak into the tests."""
    for name in ("GR4VY_BEARER_AUTH", "GR4VY_MERCHANT_ACCOUNT_ID", "GR4VY_DEBUG"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def sdk_server_url(live_server, api_key) -> str:
    """The server the SDK clients call, which knows the `default` account's key (the browser tests' is the demo
    shop's API origin)."""
    return live_server.url


@pytest.fixture
def sdk_client(sdk_server_url, private_key_pem) -> Iterator[Callable[..., Gr4vy]]:
    """`sdk_client(scopes=[...])`: an SDK client signing its own tokens; every client is closed at teardown."""
    clients: list[Gr4vy] = []

    def make(scopes: list[str] | None = None) -> Gr4vy:
        client = Gr4vy(
            server_url=sdk_server_url,
            bearer_auth=auth.with_token(private_key_pem, scopes=scopes),
            merchant_account_id="default",
        )
        clients.append(client)
        return client

    yield make
    # Closing ends keep-alive connections before the live server stops, so no thread outlives the test.
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def sdk(sdk_client) -> Gr4vy:
    """An SDK client with every scope (the SDK's own default)."""
    return sdk_client()


@pytest.fixture
def merchant(live_server, token_for) -> Iterator[httpx.Client]:
    """The merchant's server speaking raw HTTP with a token it signed itself."""
    headers = {"Authorization": f"Bearer {token_for(['*.read', '*.write'])}"}
    with httpx.Client(base_url=live_server.url, headers=headers) as client:
        yield client


@pytest.fixture
def buyer() -> Iterator[httpx.Client]:
    """The buyer's browser: a plain HTTP client that does not follow redirects (the test follows them)."""
    with httpx.Client(follow_redirects=False) as client:
        yield client
