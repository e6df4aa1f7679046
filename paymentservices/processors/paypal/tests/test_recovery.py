"""A PayPal capture whose answer was lost (its process died, or PayPal gave none) is recovered like the other
processors': PayPal cannot be looked up by our reference, but answers a capture sent again with its PayPal-Request-Id
with what it did the first time, so recovery sends it again and records that answer."""

from __future__ import annotations

import pytest

from paymentservices.models import PaymentService
from paymentservices.processors.paypal.tests.test_notifications import _at, paypal_service
from tests.paypal_mock import AUTHORIZATION_ID, CAPTURE_ID
from transactions.models import Capture
from transactions.services.recovery import transaction_sync
from transactions.services.state import SYSTEM, capture_reference
from transactions.tests.factories import CaptureFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def paypal(merchant_account, paypal_api) -> PaymentService:
    return paypal_service(merchant_account)


def _capture_pending(paypal):
    txn = _at(paypal, status="capture_pending")
    capture = CaptureFactory(transaction=txn, amount=600, status="pending")
    return txn, capture


def test_a_capture_whose_answer_was_lost_is_sent_again_with_its_reference_and_recorded(paypal, paypal_api):
    paypal_api.answer("/v2/payments/authorizations/*/capture", example="completed")
    txn, capture = _capture_pending(paypal)

    synced = transaction_sync(txn=txn, actor=SYSTEM, abandoned=True)

    assert (synced.status, synced.captured_amount, synced.payment_service_transaction_id) == (
        "capture_succeeded",
        600,
        CAPTURE_ID,
    )
    capture.refresh_from_db()
    assert (capture.status, capture.payment_service_capture_id) == ("succeeded", CAPTURE_ID)
    [sent] = paypal_api.calls("POST", f"/v2/payments/authorizations/{AUTHORIZATION_ID}/capture")
    assert sent.headers["PayPal-Request-Id"] == capture_reference(capture)


def test_a_capture_paypal_refuses_when_sent_again_leaves_the_payment_authorized(paypal, paypal_api):
    paypal_api.answer("/v2/payments/authorizations/*/capture", code=422)
    txn, capture = _capture_pending(paypal)

    synced = transaction_sync(txn=txn, actor=SYSTEM, abandoned=True)

    assert (synced.status, synced.captured_amount) == ("authorization_succeeded", 0)
    assert Capture.objects.get(pk=capture.pk).status == "declined"


def test_no_answer_again_leaves_the_capture_pending_for_the_next_run(paypal, paypal_api):
    paypal_api.answer("/v2/payments/authorizations/*/capture", code=500)
    txn, capture = _capture_pending(paypal)

    synced = transaction_sync(txn=txn, actor=SYSTEM, abandoned=True)

    assert synced.status == "capture_pending"
    assert Capture.objects.get(pk=capture.pk).status == "pending"
