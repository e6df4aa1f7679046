"""The routing decision: which services may take a payment, in which order."""

from __future__ import annotations

import uuid

import pytest

from paymentservices.models import PaymentService
from paymentservices.processors.sandbox import SandboxConnector
from paymentservices.processors.stripe import StripeConnector
from paymentservices.routing import NoPaymentService, connector_for, route
from paymentservices.services import payment_service_delete, payment_service_update
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def services(merchant_account):
    """sandbox (every currency and country) at 3; stripe-us (USD in US) at 1; stripe-eu (EUR in DE, GB) at 2."""
    sandbox = PaymentService.objects.get(merchant_account=merchant_account)
    us = PaymentServiceFactory(display_name="stripe-us", accepted_currencies=["USD"], accepted_countries=["US"])
    eu = PaymentServiceFactory(
        display_name="stripe-eu", accepted_currencies=["EUR"], accepted_countries=["DE", "GB"], position=1
    )
    payment_service_update(service=us, position=1)
    return {"sandbox": sandbox, "us": us, "eu": eu}


def _names(found) -> list[str]:
    return [service.display_name for service in found.services]


@pytest.mark.parametrize(
    ("currency", "country", "expected"),
    [
        ("USD", "US", ["stripe-us", "Sandbox"]),
        ("USD", None, ["stripe-us", "Sandbox"]),
        ("EUR", "DE", ["stripe-eu", "Sandbox"]),
        ("EUR", "US", ["Sandbox"]),
        ("JPY", "JP", ["Sandbox"]),
        ("USD", "GB", ["Sandbox"]),
    ],
    ids=["usd-us", "usd-no-country", "eur-de", "eur-from-us", "jpy", "usd-from-gb"],
)
def test_active_services_by_position_that_take_the_currency_and_country(
    services, merchant_account, currency, country, expected
):
    assert _names(route(merchant_account=merchant_account, currency=currency, country=country)) == expected


def test_order_is_the_position(services, merchant_account):
    assert [(s.display_name, s.position) for s in PaymentService.objects.order_by("position")] == [
        ("stripe-us", 1),
        ("stripe-eu", 2),
        ("Sandbox", 3),
    ]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("deactivate-us", ["Sandbox"]),
        ("delete-us", ["Sandbox"]),
        ("deactivate-sandbox", ["stripe-us"]),
    ],
)
def test_inactive_and_deleted_services_take_nothing(services, merchant_account, change, expected):
    action, name = change.split("-")
    service = services[name]
    if action == "delete":
        payment_service_delete(service=service)
    else:
        payment_service_update(service=service, active=False)

    assert _names(route(merchant_account=merchant_account, currency="USD", country="US")) == expected


def test_nothing_eligible_is_a_clear_400(services, merchant_account):
    payment_service_update(service=services["sandbox"], active=False)

    with pytest.raises(NoPaymentService) as refused:
        route(merchant_account=merchant_account, currency="JPY", country="JP")

    assert refused.value.status == 400
    assert refused.value.details[0]["pointer"] == "/currency"
    assert "JPY" in refused.value.message


@pytest.mark.parametrize(
    ("which", "currency", "country", "refusal"),
    [
        ("us", "USD", "US", None),
        ("us", "EUR", "US", "does not accept EUR"),
        ("us", "USD", "DE", "does not accept payments from DE"),
        ("inactive", "USD", "US", "not active"),
        ("deleted", "USD", "US", "does not exist for this merchant account"),
        ("other-account", "USD", "US", "does not exist for this merchant account"),
        ("missing", "USD", "US", "does not exist for this merchant account"),
    ],
)
def test_an_explicit_service_is_that_one_or_refused_by_name(
    services, merchant_account, other_merchant_account, which, currency, country, refusal
):
    if which == "inactive":
        service_id = payment_service_update(service=services["eu"], active=False, accepted_currencies=["USD"]).pk
        payment_service_update(service=services["eu"], accepted_countries=["US"])
    elif which == "deleted":
        payment_service_delete(service=services["us"])
        service_id = services["us"].pk
    elif which == "other-account":
        service_id = PaymentServiceFactory(merchant_account=other_merchant_account).pk
    elif which == "missing":
        service_id = uuid.uuid4()
    else:
        service_id = services[which].pk

    if refusal is None:
        found = route(
            merchant_account=merchant_account, currency=currency, country=country, payment_service_id=service_id
        )
        assert [service.pk for service in found.services] == [service_id]
        return
    with pytest.raises(NoPaymentService) as refused:
        route(merchant_account=merchant_account, currency=currency, country=country, payment_service_id=service_id)
    assert refusal in refused.value.message
    assert refused.value.details[0]["pointer"] == "/payment_service_id"


def test_the_sandbox_takes_nothing_on_a_production_server_without_sandbox_payments(
    services, merchant_account, settings
):
    settings.DEBUG, settings.SANDBOX_PAYMENTS = False, False

    assert _names(route(merchant_account=merchant_account, currency="USD", country="US")) == ["stripe-us"]
    with pytest.raises(NoPaymentService, match="SANDBOX_PAYMENTS"):
        route(merchant_account=merchant_account, currency="JPY", payment_service_id=services["sandbox"].pk)
    with pytest.raises(NoPaymentService):
        route(merchant_account=merchant_account, currency="JPY")


def test_each_service_speaks_through_its_own_connector(services):
    assert isinstance(connector_for(services["sandbox"]), SandboxConnector)
    assert isinstance(connector_for(services["us"]), StripeConnector)
