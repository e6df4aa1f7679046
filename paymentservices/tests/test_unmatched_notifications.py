"""A processor's notification that names nothing of ours is kept, marked not matched and shown to the operator: on
the desk's list of processor notifications (its "not matched" filter) and as a count on the start page."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid

import pytest

from paymentservices import notifications
from paymentservices.models import InboundNotification
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

WEBHOOK_SECRET = "whsec_test_unmatched_0123"
LIST = "/admin/paymentservices/inboundnotification/"


@pytest.fixture
def service(merchant_account):
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        fields=[
            {"key": "secret_key", "value": "sk_test_unmatched_0123"},
            {"key": "webhook_secret", "value": WEBHOOK_SECRET},
        ],
    )


def _post(client, service, *, intent: str, reference: str, event_id: str | None = None) -> None:
    obj = {"id": intent, "object": "payment_intent", "status": "succeeded", "metadata": {"reference": reference}}
    body = {"id": event_id or f"evt_{uuid.uuid4().hex}", "object": "event", "type": "payment_intent.succeeded"}
    payload = json.dumps({**body, "data": {"object": {**obj, "amount_received": 1000}}}).encode()
    timestamp = int(time.time())
    digest = hmac.new(WEBHOOK_SECRET.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    response = client.post(
        f"/inbound/payment-services/{service.pk}/notifications",
        payload,
        content_type="application/json",
        HTTP_STRIPE_SIGNATURE=f"t={timestamp},v1={digest}",
    )
    assert response.status_code == 200


def test_a_notification_naming_no_payment_of_ours_is_kept_not_matched_once(client, service):
    _post(client, service, intent="pi_stranger", reference=str(uuid.uuid4()), event_id="evt_stranger")
    _post(client, service, intent="pi_stranger", reference=str(uuid.uuid4()), event_id="evt_stranger")  # resent

    assert list(InboundNotification.objects.values_list("event_id", "object_id", "matched")) == [
        ("evt_stranger", "pi_stranger", False)
    ]


def test_a_notification_about_our_payment_is_matched(client, service, merchant_account):
    txn = TransactionFactory(
        merchant_account=merchant_account,
        payment_service=service,
        authorized=True,
        payment_service_transaction_id="pi_ours",
    )

    _post(client, service, intent="pi_ours", reference=str(txn.pk))

    assert InboundNotification.objects.get().matched is True


def test_a_notification_no_handler_is_concerned_with_is_neither(client, service):
    obj = {"id": "cus_1", "object": "customer"}
    body = {"id": "evt_customer", "object": "event", "type": "customer.created", "data": {"object": obj}}
    payload = json.dumps(body).encode()
    timestamp = int(time.time())
    digest = hmac.new(WEBHOOK_SECRET.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    client.post(
        f"/inbound/payment-services/{service.pk}/notifications",
        payload,
        content_type="application/json",
        HTTP_STRIPE_SIGNATURE=f"t={timestamp},v1={digest}",
    )

    assert list(InboundNotification.objects.values_list("matched", flat=True)) == [None]


@pytest.mark.parametrize(
    ("answers", "matched"),
    [([None, None], None), ([None, False], False), ([False, True], True), ([True, None], True)],
    ids=["none-concerned", "one-found-nothing", "another-found-it", "found"],
)
def test_the_record_keeps_what_the_handlers_answered(client, service, monkeypatch, answers, matched):
    # These handlers alone, in place of the apps' own.
    monkeypatch.setattr(notifications, "_HANDLERS", [lambda event, answer=answer: answer for answer in answers])

    _post(client, service, intent="pi_any", reference="any")

    assert InboundNotification.objects.get().matched is matched


def test_the_desk_lists_and_counts_the_unmatched_ones(client, support_client, service, merchant_account):
    txn = TransactionFactory(
        merchant_account=merchant_account,
        payment_service=service,
        authorized=True,
        payment_service_transaction_id="pi_ours",
    )
    _post(client, service, intent="pi_ours", reference=str(txn.pk))
    _post(client, service, intent="pi_stranger", reference=str(uuid.uuid4()))

    listed = support_client.get(f"{LIST}?matched=no").content.decode()
    start = support_client.get("/admin/").content.decode()

    assert "pi_stranger" in listed
    assert "payment_intent.succeeded" in listed
    assert "pi_ours" not in listed
    assert "Processor notifications to look into" in start
    assert f'href="{LIST}?matched=no">1 not matched</a>' in start


def test_the_start_page_says_nothing_when_every_notification_matched(support_client):
    assert "Processor notifications to look into" not in support_client.get("/admin/").content.decode()
