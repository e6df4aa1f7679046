"""The admin sign-in's failure limit holds across processes: two gunicorn servers (two workers each) on the test's
PostgreSQL database and one Redis share the counters, so failures spread over both lock the user name at that
address on both, and the right password from there is then refused by either; while the admin, at another address,
still signs in on both. Clients connect from two loopback addresses (127.0.0.1 and 127.0.0.2), which the servers see
as `REMOTE_ADDR`. Single-process behaviour: payments/tests/test_admin_login.py."""

import os
import re

import httpx
import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection

from payments.audit.models import AuditLogEntry
from tests.servers import database_url, gunicorn

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"
LIMIT = 4
LOCKED = "Too many failed sign-ins"


@pytest.fixture
def redis_required():
    if "RedisCache" not in settings.CACHES["ratelimit"]["BACKEND"]:
        pytest.skip("needs Redis for the rate-limit cache (set REDIS_URL)")


def sign_in(base_url: str, username: str, password: str, address: str = "127.0.0.1") -> httpx.Response:
    """The admin's own sign-in form, as a browser at `address` sends it: the page first (CSRF cookie and token),
    then the POST."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=base_url, timeout=30, transport=transport) as client:
        page = client.get("/admin/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token is not None, page.text[:500]
        return client.post(
            "/admin/login/",
            data={"csrfmiddlewaretoken": token.group(1), "username": username, "password": password, "next": "/admin/"},
        )


def servers_env(*, per_user: str, per_address: str) -> dict[str, str]:
    return {
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": os.environ["REDIS_URL"],
        "WEB_CONCURRENCY": "2",
        "ADMIN_LOGIN_FAILURES_PER_USER": per_user,
        "ADMIN_LOGIN_FAILURES_PER_ADDRESS": per_address,
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
    }


def test_failures_on_two_servers_lock_the_user_at_that_address_on_both(redis_required, django_user_model):
    django_user_model.objects.create_user("dana", password=PASSWORD, is_staff=True, is_superuser=True)
    env = servers_env(per_user=f"{LIMIT}/d", per_address="1000/d")
    caches["ratelimit"].clear()  # the counters live in Redis, which no test flushes for us
    with gunicorn(env) as first, gunicorn(env) as second:
        assert sign_in(first.url, "dana", PASSWORD).status_code == 302  # the servers work: below the limit

        answers = [sign_in(server.url, "dana", "wrong").text for server in (first, second) * (LIMIT // 2)]
        assert [LOCKED in text for text in answers] == [False] * (LIMIT - 1) + [True]

        for server in (first, second):
            refused = sign_in(server.url, "dana", PASSWORD)
            assert refused.status_code == 200  # the form again, no session
            assert LOCKED in refused.text
            assert "sessionid" not in refused.cookies

    assert list(AuditLogEntry.objects.values_list("action", "resource_id")) == [("locked-out", "dana")]
    caches["ratelimit"].clear()


def test_an_attacker_knowing_the_user_name_does_not_keep_the_admin_out(redis_required, django_user_model):
    django_user_model.objects.create_user("dana", password=PASSWORD, is_staff=True, is_superuser=True)
    attacker, admin = "127.0.0.2", "127.0.0.1"
    # The production defaults: 5 failures per user name at an address, 20 per address, per 15 minutes.
    env = servers_env(per_user="5/15m", per_address="20/15m")
    caches["ratelimit"].clear()
    with gunicorn(env) as first, gunicorn(env) as second:
        answers = [
            sign_in(server.url, "dana", f"guess-{n}", attacker).text for n, server in enumerate((first, second) * 10)
        ]

        assert [LOCKED in text for text in answers] == [False] * 4 + [True] * 16
        for server in (first, second):
            refused = sign_in(server.url, "dana", PASSWORD, attacker)  # the attacker's address stays limited
            assert LOCKED in refused.text
            assert "sessionid" not in refused.cookies
            signed_in = sign_in(server.url, "dana", PASSWORD, admin)  # the admin, at their own address, is not
            assert signed_in.status_code == 302, signed_in.text[:500]
            assert "sessionid" in signed_in.cookies

    assert list(AuditLogEntry.objects.values_list("action", "resource_id", "user_name")) == [
        ("locked-out", "dana", attacker)
    ]
    caches["ratelimit"].clear()
