"""Headless Chromium against a live server that answers as two origins.

The demo shop page is opened at `http://localhost:PORT` and the API (scripts, Secure Fields frames,
endpoints) is `http://127.0.0.1:PORT`: one server, two origins, so the browser really isolates the card
fields from the merchant page. Both names reach the same socket because `localhost` resolves to
127.0.0.1; Chromium is told so explicitly, so a machine whose `localhost` also resolves to ::1 behaves
the same. Chromium also maps a third name to it, for a site the merchant does not list.

The server runs in a thread of the test process, so the `settings` fixture changes it too.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from playwright.sync_api import Browser, Page, expect, sync_playwright
from pytest_django.live_server_helper import LiveServer

from payments.accounts.keys import load_private_pem, public_pem
from payments.accounts.models import MerchantAccount
from payments.accounts.services import api_key_register, merchant_account_create

CHROMIUM = Path("/usr/bin/chromium")
# A third name for the live server: a site the merchant account does not list.
FOREIGN_HOST = "other-site.test"
# A shop's name with a dot in it, as a wallet's registered domain must have, that Chromium still treats as a secure
# context (a `.localhost` name is loopback).
WALLET_SHOP_HOST = "shop.localhost"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--host-resolver-rules=MAP localhost 127.0.0.1, MAP {FOREIGN_HOST} 127.0.0.1, MAP {WALLET_SHOP_HOST} 127.0.0.1",
]
OUTPUT_DIR = Path(django_settings.BASE_DIR) / "test-output"
# Generous: the machine running the suite may be busy; no assertion depends on how fast anything is.
TIMEOUT_MS = 20_000
expect.set_options(timeout=TIMEOUT_MS)


@dataclass(frozen=True)
class DemoShop:
    """The demo merchant page and the API it talks to, on the two names of one live server."""

    merchant_account: MerchantAccount
    page_origin: str
    api_origin: str
    foreign_origin: str

    @property
    def url(self) -> str:
        return f"{self.page_origin}/demo/checkout/"


@pytest.fixture(scope="session")
def two_origin_server(django_db_setup, django_db_blocker) -> Iterator[LiveServer]:
    with django_db_blocker.unblock():
        server = LiveServer("127.0.0.1")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """One browser per test module, and Playwright running for exactly that long.

    Between its calls, Playwright's sync API marks its event loop as running in this thread, so Django takes
    every ORM call made meanwhile (the tests' checks, the database flush after each test) for a blocking call
    inside async code. Nothing runs concurrently here: the check is lifted while Playwright runs, and only then.
    """
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it as root, or run `apt-get install -y chromium`.")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            yield browser
            browser.close()


@pytest.fixture
def demo_shop(two_origin_server, transactional_db, settings, tmp_path, private_key_pem) -> DemoShop:
    """The `default` merchant allows only the shop page's origin; the demo signs with that account's key."""
    port = two_origin_server.thread.port
    shop = DemoShop(
        merchant_account=merchant_account_create(id="default", allowed_origins=[f"http://localhost:{port}"]),
        page_origin=f"http://localhost:{port}",
        api_origin=f"http://127.0.0.1:{port}",
        foreign_origin=f"http://{FOREIGN_HOST}:{port}",
    )
    api_key_register(
        public_key_pem=public_pem(load_private_pem(private_key_pem)), merchant_account=shop.merchant_account
    )
    key_path = tmp_path / "default-api-key.pem"
    key_path.write_text(private_key_pem)

    settings.DEBUG = True  # the demo page exists only in debug mode
    settings.DEMO_CHECKOUT_PRIVATE_KEY = str(key_path)
    settings.SECURE_FIELDS_ORIGIN = ""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost", "127.0.0.1", FOREIGN_HOST]
    return shop


@pytest.fixture
def sdk_server_url(demo_shop) -> str:
    """The `sdk` fixture's client calls the API origin with the demo's key, as the shop's own server would."""
    return demo_shop.api_origin


def _new_page(chromium: Browser, *, width: int, height: int, bypass_csp: bool = False) -> Iterator[Page]:
    context = chromium.new_context(viewport={"width": width, "height": height}, locale="en-US", bypass_csp=bypass_csp)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def browser_page(chromium) -> Iterator[Page]:
    yield from _new_page(chromium, width=1024, height=900)


@pytest.fixture
def phone_page(chromium) -> Iterator[Page]:
    yield from _new_page(chromium, width=360, height=740)


@pytest.fixture
def sized_page(chromium, request) -> Iterator[Page]:
    """A page of the size the test's indirect parameter names: (width, height)."""
    width, height = request.param
    yield from _new_page(chromium, width=width, height=height)


# A laptop's screen and a phone's, as the desk is looked at.
DESK_SIZES = {"laptop": (1280, 800), "phone": (390, 844)}


@pytest.fixture(params=list(DESK_SIZES), ids=list(DESK_SIZES))
def sized(request, chromium) -> Iterator[tuple[Page, str]]:
    """A page at each of `DESK_SIZES`, with its size as `WIDTHxHEIGHT` for screenshot names."""
    width, height = DESK_SIZES[request.param]
    for page in _new_page(chromium, width=width, height=height):
        yield page, f"{width}x{height}"


@pytest.fixture
def page_without_csp(chromium) -> Iterator[Page]:
    """A page whose documents' Content-Security-Policy is not enforced: for a test that plays a site the merchant's
    own policy would keep out, to show what the page's scripts do on their own."""
    yield from _new_page(chromium, width=1024, height=900, bypass_csp=True)


@pytest.fixture(scope="session")
def output_dir() -> Path:
    OUTPUT_DIR.mkdir(exist_ok=True)
    return OUTPUT_DIR
