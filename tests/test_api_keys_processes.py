"""A key deleted or disabled on one host is refused at once on every host, and so is a key on an account dropped from
it: two gunicorn servers (two workers each) on the test's PostgreSQL database and one Redis, each having verified the
key's token and remembered it, and the key changed through the other. The same holds for what the processes hold of
an account's routable payment services: a service switched off on one host is not routed to on the other. Single-process
behaviour: payments/tests/test_api_key_pairs_api.py, paymentservices/tests/test_routable_held.py."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx
import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection

from payments import held_states
from payments.accounts import keys, selectors
from payments.accounts.models import ApiKey
from paymentservices.models import PaymentService
from tests.processes import ROOT
from tests.servers import database_url, gunicorn

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROUNDS = 6  # requests per server: enough for both of its workers to have answered


def _key(*accounts: str, **fields) -> tuple[ApiKey, str]:
    """A key reaching these accounts (none named: every account)."""
    private_key, private_pem = keys.generate_private_key()
    row = ApiKey.objects.create(
        kid=keys.thumbprint(private_key.public_key()),
        public_key=keys.public_pem(private_key),
        all_merchant_accounts=not accounts,
        **fields,
    )
    row.merchant_accounts.set(accounts)
    return row, private_pem


def _statuses(url: str, token: str, account: str = "default") -> set[int]:
    headers = {"Authorization": f"Bearer {token}", "x-gr4vy-merchant-account-id": account}
    with httpx.Client(base_url=url, timeout=30, headers=headers) as client:
        return {client.get("/buyers").status_code for _ in range(ROUNDS)}


@pytest.fixture
def env(merchant_account) -> dict[str, str]:
    return {
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": os.environ["REDIS_URL"],
        "WEB_CONCURRENCY": "2",
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
        # Long enough that a process's own copy of the key, were there one, would outlive the test.
        "API_KEY_CACHE_SECONDS": "300",
        "SANDBOX_PAYMENTS": "true",  # the account's one payment service is the sandbox's
    }


@pytest.fixture
def servers(redis_required, env):
    caches["default"].clear()  # the shared cache lives in Redis, which no test flushes for us
    with gunicorn(env) as first, gunicorn(env) as second:
        yield first, second
    caches["default"].clear()


@pytest.mark.parametrize(
    ("change", "method", "body"),
    [("deleted", "DELETE", None), ("disabled", "PUT", {"active": False})],
)
def test_a_key_changed_on_one_host_is_refused_on_the_other_at_once(servers, change, method, body):
    first, second = servers
    _, admin_pem = _key(display_name="Platform")
    target, target_pem = _key("default", display_name="Leaving", roles=["viewer"])
    token = keys.mint_token(target_pem, scopes=["buyers.read"])
    assert _statuses(first.url, token) == _statuses(second.url, token) == {200}  # verified and remembered on both

    admin = {"Authorization": f"Bearer {keys.mint_token(admin_pem)}"}
    answer = httpx.request(method, f"{first.url}/api-key-pairs/{target.pk}", json=body, headers=admin, timeout=30)
    assert answer.status_code == (204 if change == "deleted" else 200), answer.text

    assert _statuses(second.url, token) == _statuses(first.url, token) == {401}


def test_an_account_dropped_from_a_key_on_one_host_is_refused_on_the_other_at_once(servers, other_merchant_account):
    first, second = servers
    _, admin_pem = _key(display_name="Platform")
    target, target_pem = _key("default", "other", display_name="Two shops", roles=["viewer"])
    token = keys.mint_token(target_pem, scopes=["buyers.read"])
    for url in (first.url, second.url):
        assert _statuses(url, token, "other") == _statuses(url, token, "default") == {200}

    admin = {"Authorization": f"Bearer {keys.mint_token(admin_pem)}"}
    narrowed = {"merchant_account_ids": ["default"]}
    answer = httpx.put(f"{first.url}/api-key-pairs/{target.pk}", json=narrowed, headers=admin, timeout=30)
    assert answer.status_code == 200, answer.text

    assert _statuses(second.url, token, "other") == _statuses(first.url, token, "other") == {403}
    assert _statuses(second.url, token, "default") == {200}


def test_a_key_revoked_from_the_command_line_is_refused_by_every_server_at_once(servers, env):
    """The change comes from neither server: `manage.py revoke_api_key` in a process of its own."""
    first, second = servers
    target, target_pem = _key("default", display_name="Leaving", roles=["viewer"])
    token = keys.mint_token(target_pem, scopes=["buyers.read"])
    assert _statuses(first.url, token) == _statuses(second.url, token) == {200}

    subprocess.run(
        [sys.executable, "manage.py", "revoke_api_key", "--", target.kid],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        check=True,
        capture_output=True,
        timeout=60,
    )

    assert _statuses(second.url, token) == _statuses(first.url, token) == {401}


def test_a_server_whose_subscription_broke_reads_the_shared_cache_again(servers):
    """Every worker's subscription to key changes is closed by Redis (a restart, a network fault), and a change is
    then written that no one announces: no worker trusts the state it held, so the key is refused at once."""
    first, second = servers
    target, target_pem = _key("default", display_name="Leaving", roles=["viewer"])
    token = keys.mint_token(target_pem, scopes=["buyers.read"])
    assert _statuses(first.url, token) == _statuses(second.url, token) == {200}

    redis = caches["default"].client.get_client(write=True)
    names = {held_states.subscription_name(pid) for server in servers for pid in server.worker_pids()}
    subscriptions = [client for client in redis.client_list(_type="pubsub") if client["name"] in names]
    assert len(subscriptions) == 4  # two servers of two workers
    for client in subscriptions:
        redis.client_kill_filter(_id=client["id"])
    caches["default"].set(selectors._key_cache_key(target.kid), selectors._INACTIVE, 300)

    assert _statuses(second.url, token) == _statuses(first.url, token) == {401}


CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


def _payments(url: str, token: str) -> set[int]:
    headers = {"Authorization": f"Bearer {token}", "x-gr4vy-merchant-account-id": "default"}
    with httpx.Client(base_url=url, timeout=30, headers=headers) as client:
        payment = {"amount": 1299, "currency": "USD", "payment_method": CARD}
        return {client.post("/transactions", json=payment).status_code for _ in range(ROUNDS)}


def test_a_payment_service_switched_off_on_one_host_is_not_routed_to_on_the_other_at_once(servers, merchant_account):
    first, second = servers
    _, admin_pem = _key(display_name="Platform")
    token = keys.mint_token(admin_pem, scopes=["transactions.write", "payment-services.write"])
    assert _payments(first.url, token) == _payments(second.url, token) == {201}  # routed, and held, by every worker

    sandbox = PaymentService.objects.get(merchant_account=merchant_account)
    headers = {"Authorization": f"Bearer {token}", "x-gr4vy-merchant-account-id": "default"}
    answer = httpx.put(
        f"{first.url}/payment-services/{sandbox.pk}", json={"active": False}, headers=headers, timeout=30
    )
    assert answer.status_code == 200, answer.text

    assert _payments(second.url, token) == _payments(first.url, token) == {400}  # no active service takes USD
