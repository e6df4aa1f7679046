"""No sandbox money in production, and the sandbox service every account starts with."""

import importlib
import io

import pytest
from django.apps import apps
from django.core.management import call_command

from payments.accounts.services import merchant_account_create
from paymentservices import checks
from paymentservices.models import PaymentService
from paymentservices.sandbox import SandboxRefused, sandbox_payments_allowed, sandbox_require

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("debug", "sandbox_payments", "allowed"),
    [(True, False, True), (True, True, True), (False, True, True), (False, False, False)],
    ids=["development", "development-flag", "production-flag", "production"],
)
def test_the_rule(settings, debug, sandbox_payments, allowed):
    settings.DEBUG, settings.SANDBOX_PAYMENTS = debug, sandbox_payments

    assert sandbox_payments_allowed() is allowed
    if allowed:
        sandbox_require()
    else:
        with pytest.raises(SandboxRefused, match="SANDBOX_PAYMENTS"):
            sandbox_require(pointer="/x")


def test_a_new_account_gets_the_sandbox_where_allowed_and_nothing_in_production(settings):
    test_account = merchant_account_create(id="test-shop")
    settings.DEBUG, settings.SANDBOX_PAYMENTS = False, False
    live_account = merchant_account_create(id="live-shop")

    assert list(
        PaymentService.objects.filter(merchant_account=test_account).values_list("definition_id", "active")
    ) == [("mock-card", True)]
    assert not PaymentService.objects.filter(merchant_account=live_account).exists()


def test_the_data_migration_gives_existing_accounts_the_sandbox_once(merchant_account, other_merchant_account):
    PaymentService.objects.all().delete()
    migration = importlib.import_module("paymentservices.migrations.0002_default_services")

    migration.add_default_services(apps, None)
    migration.add_default_services(apps, None)

    assert sorted(PaymentService.objects.values_list("merchant_account_id", "definition_id", "position")) == [
        ("default", "mock-card", 1),
        ("other", "mock-card", 1),
    ]


def test_the_data_migration_gives_older_sandboxes_upstreams_merchant_id_and_keeps_a_chosen_one(
    merchant_account, other_merchant_account
):
    PaymentService.objects.filter(merchant_account=merchant_account).update(fields={})
    PaymentService.objects.filter(merchant_account=other_merchant_account).update(fields={"merchant_id": "mine"})
    migration = importlib.import_module("paymentservices.migrations.0004_mock_card_merchant_id")

    migration.give_merchant_id(apps, None)

    assert sorted(PaymentService.objects.values_list("merchant_account_id", "fields")) == [
        ("default", {"merchant_id": "sandbox"}),
        ("other", {"merchant_id": "mine"}),
    ]


def test_the_check_names_sandbox_services_a_production_server_will_refuse(settings, merchant_account):
    settings.DEBUG, settings.SANDBOX_PAYMENTS = False, False

    (warning,) = checks.sandbox_services_refused(None, databases=["default"])

    assert warning.id == "paymentservices.W001"
    assert "1 active mock-card" in warning.msg
    assert checks.sandbox_services_refused(None, databases=None) == []  # checks that touch no database say nothing
    settings.SANDBOX_PAYMENTS = True
    assert checks.sandbox_services_refused(None, databases=["default"]) == []
    (on,) = checks.sandbox_payments_on(None)
    assert on.id == "paymentservices.W002"


def test_the_check_runs_with_the_database_checks(settings, merchant_account):
    settings.DEBUG, settings.SANDBOX_PAYMENTS = False, False
    out = io.StringIO()

    call_command("check", "--database", "default", stdout=out, stderr=out)

    assert "paymentservices.W001" in out.getvalue()
