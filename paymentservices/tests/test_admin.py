"""The admin lists each account's services in routing order, credentials masked; operators reorder them."""

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from paymentservices.models import PaymentService
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db

SECRET = "sk_test_admin_secret_0123456789"
CHANGELIST = reverse("admin:paymentservices_paymentservice_changelist")


@pytest.fixture
def stripe_service(merchant_account):
    return PaymentServiceFactory(
        display_name="Stripe",
        fields=[{"key": "secret_key", "value": SECRET}, {"key": "webhook_secret", "value": "whsec_admin_0123"}],
    )


def _order(account) -> list[str]:
    return list(
        PaymentService.objects.filter(merchant_account=account, is_deleted=False)
        .order_by("position")
        .values_list("display_name", flat=True)
    )


def test_support_sees_services_in_order_with_credentials_masked(client, staff_login, stripe_service):
    staff_login("Support")

    listing = client.get(CHANGELIST)
    page = client.get(reverse("admin:paymentservices_paymentservice_change", args=[stripe_service.pk]))

    assert (listing.status_code, page.status_code) == (200, 200)
    html = listing.content.decode()
    assert html.index("Sandbox") < html.index("Stripe")
    detail = page.content.decode()
    assert "secret_key: ••••••••" in detail
    assert "webhook_secret: ••••••••" in detail
    for response in (listing, page):
        assert SECRET not in response.content.decode()
        assert "whsec_admin_0123" not in response.content.decode()


def test_an_operator_moves_a_service_up_and_it_is_logged(client, staff_login, merchant_account, stripe_service):
    staff_login("Payments operator")

    response = client.post(CHANGELIST, {"action": "move_up", "_selected_action": [str(stripe_service.pk)]})

    assert response.status_code == 302
    assert _order(merchant_account) == ["Stripe", "Sandbox"]
    assert LogEntry.objects.get().get_change_message() == "Moved to position 1."
    client.post(CHANGELIST, {"action": "move_down", "_selected_action": [str(stripe_service.pk)]})
    assert _order(merchant_account) == ["Sandbox", "Stripe"]


def test_an_operator_deactivates_a_service(client, staff_login, merchant_account, stripe_service):
    staff_login("Payments operator")

    client.post(CHANGELIST, {"action": "deactivate", "_selected_action": [str(stripe_service.pk)]})

    stripe_service.refresh_from_db()
    assert stripe_service.active is False


def test_support_cannot_reorder_or_change_cascading(client, staff_login, merchant_account, stripe_service):
    staff_login("Support")

    client.post(CHANGELIST, {"action": "move_up", "_selected_action": [str(stripe_service.pk)]})
    client.post(CHANGELIST, {"action": "allow_cascading", "_selected_action": [str(stripe_service.pk)]})

    assert _order(merchant_account) == ["Sandbox", "Stripe"]
    stripe_service.refresh_from_db()
    assert stripe_service.cascade_retryable_declines is False


def test_services_are_neither_added_nor_deleted_in_the_admin(admin_client, stripe_service):
    assert admin_client.get(reverse("admin:paymentservices_paymentservice_add")).status_code == 403
    delete = reverse("admin:paymentservices_paymentservice_delete", args=[stripe_service.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403


def test_activating_the_sandbox_on_a_production_server_is_refused_and_said(
    client, staff_login, merchant_account, settings
):
    sandbox = PaymentService.objects.get(merchant_account=merchant_account)
    staff_login("Payments operator")
    client.post(CHANGELIST, {"action": "deactivate", "_selected_action": [str(sandbox.pk)]})
    settings.DEBUG, settings.SANDBOX_PAYMENTS = False, False

    response = client.post(CHANGELIST, {"action": "activate", "_selected_action": [str(sandbox.pk)]}, follow=True)

    assert "SANDBOX_PAYMENTS" in response.content.decode()
    sandbox.refresh_from_db()
    assert sandbox.active is False


def test_an_operator_lets_a_service_cascade_retryable_declines_and_it_is_logged(
    client, staff_login, merchant_account, stripe_service
):
    staff_login("Payments operator")
    assert stripe_service.cascade_retryable_declines is False  # off unless the merchant asks

    client.post(CHANGELIST, {"action": "allow_cascading", "_selected_action": [str(stripe_service.pk)]})

    stripe_service.refresh_from_db()
    assert stripe_service.cascade_retryable_declines is True
    assert LogEntry.objects.get().get_change_message() == "Retryable declines cascade to the next service."
    client.post(CHANGELIST, {"action": "stop_cascading", "_selected_action": [str(stripe_service.pk)]})
    stripe_service.refresh_from_db()
    assert stripe_service.cascade_retryable_declines is False
