"""The admin sign-in's failure limit: per user name at one client address and per client address, the right password
refused while locked, a clear message on the page, an audit entry, nothing served by the API; and no one who knows
an admin's user name keeps that admin out from another address. Across processes:
tests/test_admin_login_processes.py."""

import pytest
from django.core.cache import caches
from django.test import Client

from payments.audit.models import AuditLogEntry

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
PASSWORD = "correct horse battery staple"
LOCKED = "Too many failed sign-ins"


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.ADMIN_LOGIN_FAILURES_PER_USER = "3/h"
    settings.ADMIN_LOGIN_FAILURES_PER_ADDRESS = "5/h"
    caches["ratelimit"].clear()
    yield
    caches["ratelimit"].clear()


@pytest.fixture
def staff(django_user_model):
    def make(username: str):
        return django_user_model.objects.create_user(username, password=PASSWORD, is_staff=True, is_superuser=True)

    return make


def sign_in(username: str, password: str, address: str = "203.0.113.7") -> tuple[Client, str]:
    client = Client(REMOTE_ADDR=address)
    response = client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"})
    return client, response.content.decode() if response.status_code == 200 else ""


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_the_right_password_signs_in_below_the_limit(staff):
    staff("dana")
    for _ in range(2):
        sign_in("dana", "wrong")

    client, _ = sign_in("dana", PASSWORD)

    assert signed_in(client)


def test_a_user_name_is_locked_at_its_address_after_its_failures_even_with_the_right_password(staff):
    staff("dana")
    pages = [sign_in("dana", f"guess-{n}")[1] for n in range(3)]

    assert LOCKED not in pages[0]
    assert LOCKED in pages[2]  # the failure that uses up the budget says so at once
    assert "this user name from your network address" in pages[2]
    client, page = sign_in("dana", PASSWORD)
    assert not signed_in(client)
    assert LOCKED in page
    assert "even with the right password" in page
    # The same name in another case, from the same address, is the same budget.
    client, page = sign_in("DANA", PASSWORD)
    assert not signed_in(client)
    assert LOCKED in page


def test_wrong_passwords_from_one_address_do_not_keep_the_admin_out_at_another(staff, settings):
    settings.ADMIN_LOGIN_FAILURES_PER_USER = "5/15m"
    settings.ADMIN_LOGIN_FAILURES_PER_ADDRESS = "20/15m"
    staff("dana")
    attacker = "198.51.100.66"

    pages = [sign_in("dana", f"guess-{n}", address=attacker)[1] for n in range(20)]

    assert [LOCKED in page for page in pages] == [False] * 4 + [True] * 16
    client, page = sign_in("dana", PASSWORD, address=attacker)
    assert not signed_in(client)  # the attacker's address is still limited, the right password included
    assert LOCKED in page
    admin, page = sign_in("dana", PASSWORD, address="203.0.113.7")
    assert signed_in(admin)
    assert LOCKED not in page


def test_an_address_is_locked_after_its_failures_across_user_names(staff):
    staff("erin")
    for n in range(5):
        sign_in(f"user-{n}", "wrong")

    client, page = sign_in("erin", PASSWORD)

    assert not signed_in(client)
    assert "your network address" in page
    other, _ = sign_in("erin", PASSWORD, address="198.51.100.1")
    assert signed_in(other)


def test_a_lockout_is_audited_once_and_never_served_by_the_api(staff, api_client, merchant_account):
    staff("dana")
    for _ in range(5):
        sign_in("dana", "wrong")

    entries = list(AuditLogEntry.objects.values_list("action", "resource_type", "resource_id", "user_name"))
    assert entries == [("locked-out", "staff-sign-in", "dana", "203.0.113.7")]
    assert AuditLogEntry.objects.get().merchant_account_id is None
    client = api_client(scopes=["audit-logs.read"])
    assert client.get("/audit-logs").json()["items"] == []
    assert client.get("/audit-logs?action=locked-out").status_code == 400


def test_the_lock_ends_with_its_window(staff, settings):
    staff("dana")
    for _ in range(3):
        sign_in("dana", "wrong")
    caches["ratelimit"].clear()  # what the window's end does to the counters

    client, _ = sign_in("dana", PASSWORD)

    assert signed_in(client)


def test_a_typed_user_name_never_reaches_the_application_log(staff, caplog):
    secret = "my-password-typed-as-a-user-name"
    for _ in range(3):
        sign_in(secret, "wrong")

    assert "Admin sign-in locked for a user" in caplog.text
    assert secret not in caplog.text
