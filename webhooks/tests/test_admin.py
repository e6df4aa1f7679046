"""The webhooks admin: read-only, secrets never shown, "send again" POST only, for operators, logged."""

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from buyers.tests.factories import BuyerFactory
from payments.staff.roles import PAYMENTS_OPERATOR, SUPPORT
from transactions.requests import CardRequest, TransactionRequest
from transactions.services.actions import transaction_void
from transactions.services.create import transaction_create
from transactions.services.state import SYSTEM
from transactions.tests.factories import RefundFactory, TransactionFactory
from webhooks.models import DeliveryState, WebhookDelivery
from webhooks.services.subscriptions import webhook_subscription_delete, webhook_subscription_secret
from webhooks.tests.conftest import run_tasks
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def delivered(merchant_account, receiver):
    subscription = subscription_for(merchant_account, receiver.url)
    transaction_void(txn=TransactionFactory(merchant_account=merchant_account, authorized=True), actor=SYSTEM)
    run_tasks()
    return subscription, WebhookDelivery.objects.order_by("created_at").first()


def _send_again(client, delivery):
    return client.post(
        "/admin/webhooks/webhookdelivery/", {"action": "send_again", "_selected_action": [str(delivery.pk)]}
    )


def test_an_operator_sends_a_delivery_again_and_it_is_logged(client, staff_login, receiver, delivered):
    subscription, delivery = delivered
    user = staff_login(PAYMENTS_OPERATOR)
    sent = len(receiver.received)

    assert client.get(f"/admin/webhooks/webhookdelivery/{delivery.pk}/change/").status_code == 200
    page = client.get(f"/admin/webhooks/webhooksubscription/{subscription.pk}/change/").content.decode()
    assert webhook_subscription_secret(subscription) not in page
    response = _send_again(client, delivery)
    run_tasks()

    assert response.status_code == 302
    assert len(receiver.received) == sent + 1
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.DELIVERED
    assert delivery.attempts.last().requested_by == user.username
    assert LogEntry.objects.filter(object_id=str(delivery.pk), change_message="Sent again.").exists()


def test_support_cannot_send_again_and_a_get_changes_nothing(client, staff_login, receiver, delivered):
    _, delivery = delivered
    staff_login(SUPPORT)
    sent = len(receiver.received)

    _send_again(client, delivery)
    client.get("/admin/webhooks/webhookdelivery/", {"action": "send_again", "_selected_action": [str(delivery.pk)]})
    run_tasks()

    assert len(receiver.received) == sent
    assert not LogEntry.objects.exists()


def _captured_for(merchant_account, buyer):
    card = CardRequest(number="4111111111111111", expiration_month=12, expiration_year=2039, security_code="123")
    request = TransactionRequest(amount=1000, currency="USD", payment_method=card, intent="capture", buyer_id=buyer.pk)
    return transaction_create(merchant_account=merchant_account, actor=SYSTEM, request=request)


def test_the_transaction_page_leads_to_buyer_refunds_and_deliveries(client, merchant_account, staff_login, receiver):
    subscription_for(merchant_account, receiver.url)
    buyer = BuyerFactory(merchant_account=merchant_account, display_name="Felix Okafor")
    txn = _captured_for(merchant_account, buyer)
    refund = RefundFactory(transaction=txn)
    run_tasks()
    staff_login(SUPPORT)

    html = client.get(reverse("admin:transactions_transaction_change", args=[txn.pk])).content.decode()

    assert reverse("admin:buyers_buyer_profile", args=[buyer.pk]) in html
    assert reverse("admin:transactions_refund_change", args=[refund.pk]) in html
    delivery = WebhookDelivery.objects.filter(event__target_id=str(txn.pk)).first()
    assert delivery is not None
    assert reverse("admin:webhooks_webhookdelivery_change", args=[delivery.pk]) in html


def test_a_transactions_timeline_shows_its_webhook_deliveries_linked(client, staff_login, delivered):
    """The transaction's page lists what the webhooks consumer did with its events, through the outbox's activity
    registry (the transactions app does not know the webhooks app)."""
    _, delivery = delivered
    staff_login(SUPPORT)

    page = client.get(f"/admin/transactions/transaction/{delivery.event.target_id}/change/").content.decode()

    assert f"webhook transaction.voided to {delivery.subscription.url}: delivered" in page
    assert "1 attempt(s)" in page
    assert reverse("admin:webhooks_webhookdelivery_change", args=[delivery.pk]) in page


def test_the_delivery_list_names_each_receiver_deleted_ones_too(client, staff_login, delivered):
    subscription, _ = delivered
    url = subscription.url
    webhook_subscription_delete(subscription=subscription)
    staff_login(SUPPORT)

    page = client.get("/admin/webhooks/webhookdelivery/").content.decode()

    assert f"{url} (subscription deleted)" in page
