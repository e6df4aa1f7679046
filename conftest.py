"""Fixtures every test can use: keys for the card vault, merchant accounts, and API clients that
authenticate with real ES512 tokens, minted exactly as the official SDK mints them. And the session's log scan:
no line any test logs may hold a credential any test used (tests/logscan.py); and on PostgreSQL, every kept `SELECT`
compared with Django's own compile (tests/kept_selects.py)."""

import base64
import importlib.util
from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from payments.accounts import selectors
from payments.accounts.keys import generate_private_key, mint_token, public_pem
from payments.accounts.services import api_key_register
from payments.bins.selectors import forget_bin_lookups
from payments.rest import authentication
from tests.kept_selects import KeptSelectCheck
from tests.logscan import LogScan
from webhooks.selectors import forget_active_subscriptions

_LOG_SCAN = LogScan()
_KEPT_SELECTS = KeptSelectCheck()


def _processor_doubles() -> list[str]:
    """Each registered processor's double's fixtures (`<its folder>/tests/double.py`, starting its `tests/mock.py`), for
    every test: found by walking the registry, so that a processor's double is its folder's and names no line here."""
    from paymentservices.processors import PROCESSORS

    packages = {type(processor).__module__.rpartition(".")[0] for processor in PROCESSORS}
    modules = (f"{package}.tests.double" for package in sorted(packages))
    return [module for module in modules if importlib.util.find_spec(module) is not None]


# The stand-in for Apple Pay's validation hosts (a TLS server requiring the merchant identity certificate) too.
pytest_plugins = [*_processor_doubles(), "digitalwallets.tests.validation"]

TEST_CARD_KEYS = ["test1:" + base64.urlsafe_b64encode(b"k" * 32).decode().rstrip("=")]
TEST_FINGERPRINT_KEY = base64.urlsafe_b64encode(b"f" * 32).decode().rstrip("=")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """`@pytest.mark.postgres` tests need real row locks and concurrent connections: skip them on SQLite."""
    from django.db import connection

    if item.get_closest_marker("postgres") and connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL)")


@pytest.fixture(scope="session", autouse=True)
def log_scan(django_db_blocker):
    """Every record every test logs, scanned at the end of the session for every credential the tests used."""
    with _LOG_SCAN.learning():
        yield _LOG_SCAN
    _LOG_SCAN.report()


@pytest.fixture(scope="session", autouse=True)
def kept_selects():
    """On PostgreSQL, every `SELECT` the backend serves from a kept compile, compared with Django's own compile."""
    with _KEPT_SELECTS.checking():
        yield _KEPT_SELECTS
    _KEPT_SELECTS.report()


@pytest.fixture(autouse=True)
def _session_checks_named(request, log_scan, kept_selects):
    """The session's checks name the test that failed them. Tests that reapply the logging configuration remove the
    scan's handler: put it back before each test."""
    log_scan.test = kept_selects.test = request.node.nodeid
    log_scan.attach()


@pytest.fixture(autouse=True)
def _test_secrets(settings):
    settings.CARD_ENCRYPTION_KEYS = TEST_CARD_KEYS
    settings.CARD_FINGERPRINT_KEY = TEST_FINGERPRINT_KEY
    # Django runs tests with DEBUG off, as in production: the suite takes sandbox payments as a test server would
    # (every merchant account gets its mock-card service). Tests of the production rule turn this off.
    settings.SANDBOX_PAYMENTS = True


@pytest.fixture(autouse=True)
def _fresh_in_process_caches():
    """In-process caches (keys, tokens, which accounts have webhook subscriptions) must not leak rows from one
    test's database into the next."""
    yield
    selectors.clear_caches()
    authentication.clear_caches()
    forget_active_subscriptions()
    forget_bin_lookups()


@pytest.fixture
def redis_required(settings):
    """For the tests of what needs Redis as the shared cache (the PostgreSQL and Redis run): skipped without it."""
    if "RedisCache" not in settings.CACHES["default"]["BACKEND"]:
        pytest.skip("needs Redis for the shared cache (set REDIS_URL)")


@pytest.fixture(scope="session")
def private_key_pem() -> str:
    return generate_private_key()[1]


@pytest.fixture
def merchant_account(db):
    from payments.tests.factories import MerchantAccountFactory

    return MerchantAccountFactory(id="default", display_name="Default")


@pytest.fixture
def other_merchant_account(db):
    from payments.tests.factories import MerchantAccountFactory

    return MerchantAccountFactory(id="other", display_name="Other")


@pytest.fixture
def api_key(db, private_key_pem, merchant_account):
    """An API key bound to the `default` merchant account."""
    return api_key_register(public_key_pem=public_pem_of(private_key_pem), merchant_account=merchant_account)


def public_pem_of(private_pem: str) -> str:
    from payments.accounts.keys import load_private_pem

    return public_pem(load_private_pem(private_pem))


@pytest.fixture
def token_for(api_key, private_key_pem) -> Callable[..., str]:
    """Mint a token signed by the default API key."""

    def mint(scopes: list[str] | None = None, **claims) -> str:
        return mint_token(private_key_pem, scopes=scopes, **claims)

    return mint


@pytest.fixture
def api_client(token_for) -> Callable[..., APIClient]:
    """`api_client(scopes=["buyers.read"])`: a client whose requests carry a real ES512 bearer token."""

    def make(scopes: list[str] | None = None, merchant_account_id: str | None = None, **claims) -> APIClient:
        client = APIClient()
        headers = {"HTTP_AUTHORIZATION": f"Bearer {token_for(scopes, **claims)}"}
        if merchant_account_id:
            headers["HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID"] = merchant_account_id
        client.credentials(**headers)
        return client

    return make


@pytest.fixture(scope="session")
def all_accounts_private_key_pem() -> str:
    return generate_private_key()[1]


@pytest.fixture
def all_accounts_client(db, all_accounts_private_key_pem) -> Callable[..., APIClient]:
    """`all_accounts_client(scopes=["merchant-accounts.read"])`: a client whose real ES512 token is signed by an API
    key made for every merchant account (`create_api_key --merchant-account all`)."""
    api_key_register(public_key_pem=public_pem_of(all_accounts_private_key_pem), merchant_account=None)

    def make(scopes: list[str] | None = None, merchant_account_id: str | None = None) -> APIClient:
        client = APIClient()
        headers = {"HTTP_AUTHORIZATION": f"Bearer {mint_token(all_accounts_private_key_pem, scopes=scopes)}"}
        if merchant_account_id:
            headers["HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID"] = merchant_account_id
        client.credentials(**headers)
        return client

    return make


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


@pytest.fixture
def staff_login(db, client):
    """`staff_login("Support")`: log the test client in as a staff user of that group (roles synced first)."""
    from django.contrib.auth.models import Group, User

    from payments.staff.roles import roles_sync

    def login(group: str):
        roles_sync()
        user = User.objects.create_user(group.lower().replace(" ", "-"), is_staff=True)
        user.groups.add(Group.objects.get(name=group))
        client.force_login(user)
        return user

    return login


@pytest.fixture
def support_client(client, staff_login):
    """The test client, logged in as a member of the view-only Support group."""
    from payments.staff.roles import SUPPORT

    staff_login(SUPPORT)
    return client
