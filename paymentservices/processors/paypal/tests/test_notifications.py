"""PayPal's webhook events at the inbound route: each verified by asking the PayPal double (`verify-webhook-signature`,
Prism validating the request by PayPal's Notifications v1 document, the double's signature deciding the answer)
with the service's `webhook_id`, recorded once by its event id, and applied in any order: a capture, refund, void or
authorization made at PayPal reaches the transaction, its disputes reach the one dispute service, and an event that
names nothing of ours is kept (recorded, answered) and changes nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from disputes.models import Dispute
from payments.tests.assertions import assert_error
from paymentservices.models import InboundNotification, PaymentService
from paymentservices.processors.paypal import PROCESSOR as PAYPAL
from paymentservices.processors.paypal.tests.mock import (
    AUTHORIZATION_ID,
    CAPTURE_ID,
    ORDER_ID,
    REFUND_ID,
    VERIFY_PATH,
    WEBHOOK_ID,
    signed_headers,
)
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Capture, Refund, Transaction, TransactionEvent
from transactions.tests.factories import CaptureFactory, RefundFactory, TransactionFactory

pytestmark = pytest.mark.django_db

DISPUTE_ID = "PP-D-21527"
API = "https://api-m.paypal.com"


@pytest.fixture
def paypal(merchant_account, paypal_api) -> PaymentService:
    return paypal_service(merchant_account)


def paypal_service(merchant_account) -> PaymentService:
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        definition_id=PAYPAL.id,
        display_name="PayPal",
        fields=[
            {"key": "client_id", "value": "AeA1QIZXiflr1"},
            {"key": "client_secret", "value": "ECYYrrSHdKfk"},
            {"key": "webhook_id", "value": WEBHOOK_ID},
        ],
    )


def _now(delta: timedelta = timedelta()) -> str:
    return (datetime.now(UTC) + delta).isoformat(timespec="seconds").replace("+00:00", "Z")


def _event(event_type: str, resource: dict[str, Any], *, event_id: str | None = None) -> dict[str, Any]:
    return {
        "id": event_id or f"WH-{abs(hash((event_type, json.dumps(resource, sort_keys=True)))) % 10**12:012d}",
        "event_version": "1.0",
        "create_time": _now(),
        "resource_type": event_type.split(".")[1].lower(),
        "event_type": event_type,
        "summary": event_type,
        "resource": resource,
    }


def _money(value: str) -> dict[str, str]:
    return {"currency_code": "USD", "value": value}


def _link(collection: str, object_id: str) -> list[dict[str, str]]:
    return [{"href": f"{API}/v2/payments/{collection}/{object_id}", "rel": "up", "method": "GET"}]


def _capture(txn: Transaction, status: str, value: str = "10.00", capture_id: str = CAPTURE_ID) -> dict[str, Any]:
    return {
        "id": capture_id,
        "status": status,
        "amount": _money(value),
        "final_capture": True,
        "custom_id": str(txn.pk),
        "supplementary_data": {"related_ids": {"order_id": ORDER_ID, "authorization_id": AUTHORIZATION_ID}},
        "links": _link("authorizations", AUTHORIZATION_ID),
    }


def _refund(value: str, refund_id: str = REFUND_ID, custom_id: str | None = None) -> dict[str, Any]:
    refund = {"id": refund_id, "status": "COMPLETED", "amount": _money(value), "links": _link("captures", CAPTURE_ID)}
    if custom_id:
        refund["custom_id"] = custom_id
    return refund


def _authorization(txn: Transaction, status: str) -> dict[str, Any]:
    return {"id": AUTHORIZATION_ID, "status": status, "amount": _money("10.00"), "custom_id": str(txn.pk)}


def _dispute(txn: Transaction, status: str, *, at: timedelta, outcome: str | None = None, value: str = "10.00"):
    dispute: dict[str, Any] = {
        "dispute_id": DISPUTE_ID,
        "create_time": _now(timedelta(minutes=-30)),
        "update_time": _now(at),
        "disputed_transactions": [{"seller_transaction_id": CAPTURE_ID, "custom": str(txn.pk)}],
        "reason": "MERCHANDISE_OR_SERVICE_NOT_RECEIVED",
        "status": status,
        "dispute_amount": _money(value),
        "dispute_life_cycle_stage": "CHARGEBACK",
        "seller_response_due_date": _now(timedelta(days=10)),
    }
    if outcome:
        dispute["dispute_outcome"] = {"outcome_code": outcome}
    return dispute


def _post(client, service: PaymentService, event: dict[str, Any], headers: dict[str, str] | None = None):
    body = json.dumps(event)
    sent = signed_headers(event) if headers is None else headers
    return client.post(
        f"/inbound/payment-services/{service.pk}/notifications",
        body,
        content_type="application/json",
        headers=sent,
    )


def _at(paypal: PaymentService, status: str = "authorization_succeeded", **fields: Any) -> Transaction:
    traits = {"authorized": True} if status != "processing" else {}
    txn = TransactionFactory(
        merchant_account=paypal.merchant_account,
        payment_service=paypal,
        method="paypal",
        amount=1000,
        currency="USD",
        payment_service_transaction_id=AUTHORIZATION_ID,
        **traits,
    )
    Transaction.objects.filter(pk=txn.pk).update(status=status, **fields)
    txn.refresh_from_db()
    return txn


def _names(txn: Transaction) -> list[str]:
    events = TransactionEvent.objects.filter(transaction=txn).order_by("created_at", "id")
    return list(events.values_list("name", flat=True))


def test_the_definition_says_it_reads_webhooks_with_the_webhook_id():
    assert PAYPAL.features["webhooks"] is True
    assert PAYPAL.notification_secret_field == "webhook_id"


def test_a_signed_event_is_verified_by_paypal_with_the_services_webhook_id(client, paypal, paypal_api):
    txn = _at(paypal)
    event = _event("PAYMENT.CAPTURE.COMPLETED", _capture(txn, "COMPLETED"))

    assert _post(client, paypal, event).status_code == 200

    [verify] = paypal_api.calls("POST", VERIFY_PATH)
    assert verify.headers["Authorization"].startswith("Bearer ")
    assert verify.body["webhook_id"] == WEBHOOK_ID
    assert verify.body["webhook_event"] == event
    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount, txn.payment_service_transaction_id) == (
        "capture_succeeded",
        1000,
        CAPTURE_ID,
    )


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(
            lambda event, headers: (dict(event, resource={**event["resource"], "amount": _money("99.00")}), headers),
            id="changed",
        ),
        pytest.param(
            lambda event, headers: (event, signed_headers(event, webhook_id="OTHERWEBHOOK1")), id="other-webhook"
        ),
        pytest.param(
            lambda event, headers: (event, {k: v for k, v in headers.items() if k != "PAYPAL-TRANSMISSION-SIG"}),
            id="unsigned",
        ),
    ],
)
def test_a_forged_event_is_refused_and_writes_nothing(client, paypal, paypal_api, forge):
    txn = _at(paypal)
    signed = _event("PAYMENT.CAPTURE.COMPLETED", _capture(txn, "COMPLETED", value="5.00"))
    event, headers = forge(signed, signed_headers(signed))

    answer = _post(client, paypal, event, headers=headers)

    assert_error(answer, 400)
    assert not InboundNotification.objects.exists()
    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)


def test_an_event_paypal_cannot_be_asked_about_is_refused_for_paypal_to_send_again(client, paypal, paypal_api):
    paypal_api.answer(VERIFY_PATH, code=500)
    txn = _at(paypal)

    answer = _post(client, paypal, _event("PAYMENT.CAPTURE.COMPLETED", _capture(txn, "COMPLETED")))

    assert_error(answer, 400, "/paypal-transmission-sig", location="header")
    assert not InboundNotification.objects.exists()


def test_a_resent_event_is_applied_once(client, paypal):
    txn = _at(paypal, status="capture_succeeded", captured_amount=1000, payment_service_transaction_id=CAPTURE_ID)
    event = _event("PAYMENT.CAPTURE.REFUNDED", _refund("2.50"))

    assert _post(client, paypal, event).status_code == 200
    assert _post(client, paypal, event).status_code == 200

    txn.refresh_from_db()
    assert txn.refunded_amount == 250
    [refund] = Refund.objects.filter(transaction=txn)
    assert (refund.amount, refund.status, refund.payment_service_refund_id) == (250, "succeeded", REFUND_ID)
    assert InboundNotification.objects.filter(payment_service=paypal).count() == 1


def test_a_refund_and_a_reversal_made_at_paypal_each_reach_the_books(client, paypal):
    txn = _at(paypal, status="capture_succeeded", captured_amount=1000, payment_service_transaction_id=CAPTURE_ID)

    _post(client, paypal, _event("PAYMENT.CAPTURE.REFUNDED", _refund("2.50")))
    _post(client, paypal, _event("PAYMENT.CAPTURE.REVERSED", _refund("7.50", refund_id="9LK41223PX1160418")))

    txn.refresh_from_db()
    assert (txn.refunded_amount, txn.status) == (1000, "capture_succeeded")
    assert sorted(Refund.objects.filter(transaction=txn).values_list("amount", flat=True)) == [250, 750]


def test_our_own_refund_told_before_its_answer_is_recorded_is_not_booked_twice(client, paypal):
    txn = _at(paypal, status="capture_succeeded", captured_amount=1000, payment_service_transaction_id=CAPTURE_ID)
    ours = RefundFactory(transaction=txn, amount=250, status="processing")

    _post(client, paypal, _event("PAYMENT.CAPTURE.REFUNDED", _refund("2.50", custom_id=str(ours.pk))))

    assert list(Refund.objects.filter(transaction=txn).values_list("pk", flat=True)) == [ours.pk]


def test_a_capture_made_at_paypal_names_the_payment_from_then_on(client, paypal):
    txn = _at(paypal)

    _post(client, paypal, _event("PAYMENT.CAPTURE.COMPLETED", _capture(txn, "COMPLETED", value="6.00")))
    _post(client, paypal, _event("PAYMENT.CAPTURE.REFUNDED", _refund("1.00")))

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount, txn.refunded_amount) == ("capture_succeeded", 600, 100)
    [capture] = Capture.objects.filter(transaction=txn)
    assert (capture.amount, capture.status, capture.payment_service_capture_id) == (600, "succeeded", CAPTURE_ID)


def test_a_pending_capture_then_completed_captures_once(client, paypal):
    txn = _at(paypal)

    _post(client, paypal, _event("PAYMENT.CAPTURE.PENDING", _capture(txn, "PENDING")))
    _post(client, paypal, _event("PAYMENT.CAPTURE.COMPLETED", _capture(txn, "COMPLETED")))

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("capture_succeeded", 1000)
    assert Capture.objects.filter(transaction=txn).count() == 1


def test_a_denied_capture_undoes_the_pending_one(client, paypal):
    txn = _at(paypal)

    _post(client, paypal, _event("PAYMENT.CAPTURE.PENDING", _capture(txn, "PENDING")))
    _post(client, paypal, _event("PAYMENT.CAPTURE.DENIED", _capture(txn, "DENIED")))

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    assert list(Capture.objects.filter(transaction=txn).values_list("status", flat=True)) == ["failed"]


def test_a_pending_capture_arriving_after_its_denial_captures_nothing(client, paypal):
    txn = _at(paypal)

    _post(client, paypal, _event("PAYMENT.CAPTURE.DENIED", _capture(txn, "DENIED")))
    _post(client, paypal, _event("PAYMENT.CAPTURE.PENDING", _capture(txn, "PENDING")))

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    assert list(Capture.objects.filter(transaction=txn).values_list("status", flat=True)) == ["failed"]
    assert "processor_notification" in _names(txn)  # the late word is kept for the operator


def test_our_pending_capture_denied_by_paypal_fails(client, paypal):
    txn = _at(paypal, status="capture_succeeded", captured_amount=1000, payment_service_transaction_id=CAPTURE_ID)
    CaptureFactory(transaction=txn, amount=1000, status="succeeded", payment_service_capture_id=CAPTURE_ID)

    _post(client, paypal, _event("PAYMENT.CAPTURE.DENIED", _capture(txn, "DENIED")))

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)


def test_a_void_at_paypal_voids_and_its_late_authorization_changes_nothing(client, paypal):
    txn = _at(paypal)

    _post(client, paypal, _event("PAYMENT.AUTHORIZATION.VOIDED", _authorization(txn, "VOIDED")))
    _post(client, paypal, _event("PAYMENT.AUTHORIZATION.CREATED", _authorization(txn, "CREATED")))

    txn.refresh_from_db()
    assert txn.status == "authorization_voided"
    assert "authorization_after_cancel" not in _names(txn)


def test_an_authorization_settles_a_payment_whose_request_died(client, paypal):
    txn = _at(paypal, status="processing", payment_service_transaction_id=ORDER_ID)

    _post(client, paypal, _event("PAYMENT.AUTHORIZATION.CREATED", _authorization(txn, "CREATED")))

    txn.refresh_from_db()
    assert (txn.status, txn.payment_service_transaction_id, txn.authorized_amount) == (
        "authorization_succeeded",
        AUTHORIZATION_ID,
        1000,
    )


def test_a_pending_authorization_is_no_decline(client, paypal):
    txn = _at(paypal, status="processing", payment_service_transaction_id=ORDER_ID)

    _post(client, paypal, _event("PAYMENT.AUTHORIZATION.CREATED", _authorization(txn, "PENDING")))

    txn.refresh_from_db()
    assert txn.status == "processing"


def test_an_approved_order_is_recorded_and_moves_nothing(client, paypal):
    txn = _at(paypal, status="buyer_approval_pending", payment_service_transaction_id=ORDER_ID)
    order = {"id": ORDER_ID, "status": "APPROVED", "purchase_units": [{"custom_id": str(txn.pk)}]}

    assert _post(client, paypal, _event("CHECKOUT.ORDER.APPROVED", order)).status_code == 200

    txn.refresh_from_db()
    assert txn.status == "buyer_approval_pending"
    assert InboundNotification.objects.get().object_id == ORDER_ID


def test_an_event_about_no_payment_of_ours_is_kept_and_changes_nothing(client, paypal, caplog):
    txn = _at(paypal)
    stranger = _capture(txn, "COMPLETED", capture_id="3C679366HH908993F")
    stranger["custom_id"] = "not-ours"
    stranger["supplementary_data"]["related_ids"]["authorization_id"] = "5RT12345AB1234567"

    assert _post(client, paypal, _event("PAYMENT.CAPTURE.COMPLETED", stranger)).status_code == 200

    kept = InboundNotification.objects.get()
    assert (kept.event_type, kept.object_id) == ("PAYMENT.CAPTURE.COMPLETED", "3C679366HH908993F")
    assert any("names no payment of the service (5RT12345AB1234567)" in r.getMessage() for r in caplog.records)
    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"


def test_an_event_type_not_read_is_kept(client, paypal):
    assert _post(client, paypal, _event("PAYMENT.PAYOUTS-ITEM.SUCCEEDED", {"id": "PO-1"})).status_code == 200
    assert InboundNotification.objects.get().event_type == "PAYMENT.PAYOUTS-ITEM.SUCCEEDED"


def test_disputes_reach_the_one_dispute_service_in_any_order(client, paypal):
    txn = _at(paypal, status="capture_succeeded", captured_amount=1000, payment_service_transaction_id=CAPTURE_ID)

    resolved = _event(
        "CUSTOMER.DISPUTE.RESOLVED",
        _dispute(txn, "RESOLVED", at=timedelta(minutes=-1), outcome="RESOLVED_SELLER_FAVOUR"),
    )
    created = _event(
        "CUSTOMER.DISPUTE.CREATED", _dispute(txn, "WAITING_FOR_SELLER_RESPONSE", at=timedelta(minutes=-20))
    )
    updated = _event("CUSTOMER.DISPUTE.UPDATED", _dispute(txn, "UNDER_REVIEW", at=timedelta(minutes=-10)))
    for event in (resolved, created, updated, created):
        assert _post(client, paypal, event).status_code == 200

    dispute = Dispute.objects.get(transaction=txn)
    assert (dispute.processor_dispute_id, dispute.state, dispute.amount, dispute.currency) == (
        DISPUTE_ID,
        "won",
        1000,
        "USD",
    )


def test_a_dispute_opens_and_is_lost(client, paypal):
    txn = _at(paypal, status="capture_succeeded", captured_amount=1000, payment_service_transaction_id=CAPTURE_ID)

    _post(
        client,
        paypal,
        _event("CUSTOMER.DISPUTE.CREATED", _dispute(txn, "OPEN", at=timedelta(minutes=-5), value="4.00")),
    )
    opened = Dispute.objects.get(transaction=txn)
    assert (opened.state, opened.amount, opened.reason) == (
        "needs_response",
        400,
        "MERCHANDISE_OR_SERVICE_NOT_RECEIVED",
    )
    assert opened.due_at is not None

    _post(
        client,
        paypal,
        _event(
            "CUSTOMER.DISPUTE.RESOLVED",
            _dispute(txn, "RESOLVED", at=timedelta(), outcome="RESOLVED_BUYER_FAVOUR", value="4.00"),
        ),
    )
    assert Dispute.objects.get(transaction=txn).state == "lost"


def test_a_dispute_with_an_undocumented_status_is_refused_naming_it(client, paypal):
    txn = _at(paypal, status="capture_succeeded", captured_amount=1000, payment_service_transaction_id=CAPTURE_ID)

    answer = _post(client, paypal, _event("CUSTOMER.DISPUTE.CREATED", _dispute(txn, "SETTLED", at=timedelta())))

    assert_error(answer, 400, "/resource/status")
    assert not Dispute.objects.exists()


def test_an_amount_paypal_never_sends_is_refused_naming_it(client, paypal):
    txn = _at(paypal)

    answer = _post(client, paypal, _event("PAYMENT.CAPTURE.COMPLETED", _capture(txn, "COMPLETED", value="-1.00")))

    assert_error(answer, 400, "/resource/amount/value")
    txn.refresh_from_db()
    assert txn.captured_amount == 0
    assert not TransactionEvent.objects.filter(transaction=txn, name="capture_succeeded").exists()
