"""A merchant account's own payout limit: set on its desk page by whoever may change the account (audited), never
above the server's, and a payout over it refused naming it."""

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from payments.audit.models import AuditLogEntry
from payments.errors import DomainError
from payouts.models import Payout, PayoutAccountLimit
from payouts.services import payout_account_limit_set
from payouts.tests.test_api import CARD

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_api(api_client):
    return api_client(scopes=["payouts.read", "payouts.write"])


def _pay(client, service, amount, currency="USD"):
    body = {"amount": amount, "currency": currency, "payment_service_id": str(service.pk), "payment_method": CARD}
    return client.post("/payouts", body, format="json")


def test_a_payout_over_the_account_s_own_limit_is_refused_naming_it(client_api, sandbox_service, merchant_account):
    payout_account_limit_set(merchant_account=merchant_account, max_amount=500)

    over = _pay(client_api, sandbox_service, 501)
    within = _pay(client_api, sandbox_service, 500)

    assert over.status_code == 400, over.content
    [detail] = over.json()["details"]
    assert detail["pointer"] == "/amount"
    assert "5.00" in detail["message"]
    assert "set itself" in over.json()["message"]
    assert (within.status_code, within.json()["status"]) == (201, "succeeded")
    assert Payout.objects.count() == 1


def test_the_server_s_limit_stays_the_ceiling(client_api, sandbox_service, merchant_account, settings):
    payout_account_limit_set(merchant_account=merchant_account, max_amount=5000)
    settings.PAYOUT_MAX_AMOUNTS = {"USD": 1000}

    over = _pay(client_api, sandbox_service, 1001)

    assert over.status_code == 400
    assert "set itself" not in over.json()["message"]
    assert "10.00" in over.json()["message"]
    with pytest.raises(DomainError):
        payout_account_limit_set(merchant_account=merchant_account, max_amount=settings.PAYOUT_MAX_AMOUNT + 1)
    with pytest.raises(DomainError):
        payout_account_limit_set(merchant_account=merchant_account, max_amount=0)
    assert PayoutAccountLimit.objects.get().max_amount == 5000


def _account_form(account, limit):
    return {"display_name": account.display_name, "allowed_origins": "[]", "payout_limit": limit}


def test_an_administrator_sets_the_limit_on_the_account_page_audited(admin_client, merchant_account, settings):
    page = reverse("admin:payments_merchantaccount_change", args=[merchant_account.pk])

    shown = admin_client.get(page).content.decode()
    changed = admin_client.post(page, _account_form(merchant_account, "700"))
    limit = PayoutAccountLimit.objects.get(merchant_account=merchant_account)
    again = admin_client.get(page).content.decode()
    too_high = admin_client.post(page, _account_form(merchant_account, str(settings.PAYOUT_MAX_AMOUNT + 1)))
    cleared = admin_client.post(page, _account_form(merchant_account, ""))

    assert 'name="payout_limit"' in shown
    assert changed.status_code == 302
    assert limit.max_amount == 700
    assert 'value="700"' in again
    assert too_high.status_code == 200  # the form again, with the error
    assert "less than or equal to" in too_high.content.decode()
    assert cleared.status_code == 302
    assert not PayoutAccountLimit.objects.exists()
    assert AuditLogEntry.objects.filter(resource_id=merchant_account.pk, action="updated").count() == 2
    logged = LogEntry.objects.filter(object_id=merchant_account.pk)
    assert [entry.get_change_message().endswith("Payout limit.") for entry in logged] == [True, True]


@pytest.mark.parametrize("group", ["Support", "Payments operator"])
def test_who_may_not_change_the_account_cannot_set_its_limit(client, staff_login, merchant_account, group):
    staff_login(group)
    page = reverse("admin:payments_merchantaccount_change", args=[merchant_account.pk])

    response = client.post(page, _account_form(merchant_account, "700"))

    assert response.status_code == 403
    assert not PayoutAccountLimit.objects.exists()
    assert not AuditLogEntry.objects.exists()
