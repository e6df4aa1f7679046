"""The admin sign-in's failure limit holds across processes: two gunicorn servers (two workers each) on the test's
PostgreSQL database and one Redis share the counters, so failures spread over both lock the user name on both,
and the right password is then refused by either. Single-process behaviour: payments/tests/test_admin_login.py."""

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


def sign_in(base_url: str, username: str, password: str) -> httpx.Response:
    """The admin's own sign-in form, as a browser sends it: the page first (CSRF cookie and token), then the POST."""
    with httpx.Client(base_url=base_url, timeout=30) as client:
        page = client.get("/admin/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token is not None, page.text[:500]
        return client.post(
            "/admin/login/",
            data={"csrfmiddlewaretoken": token.group(1), "username": username, "password": password, "next": "/admin/"},
        )


def test_failures_on_two_servers_lock_the_user_on_both(redis_required, django_user_model):
    django_user_model.objects.create_user("dana", password=PASSWORD, is_staff=True, is_superuser=True)
    env = {
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": os.environ["REDIS_URL"],
        "WEB_CONCURRENCY": "2",
        "ADMIN_LOGIN_FAILURES_PER_USER": f"{LIMIT}/d",
        "ADMIN_LOGIN_FAILURES_PER_ADDRESS": "1000/d",
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
    }
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
