"""A PayPal capture, void or refund whose answer was lost (its process died, or PayPal gave none: a timeout, a dropped
connection, a 5xx) is recovered like the other processors': never failed while PayPal may have acted, it stays pending;
PayPal cannot be looked up by our reference, but answers a write sent again with its PayPal-Request-Id with what it did
the first time, so recovery sends it again and records that answer."""

from __future__ import annotations

import pytest

from paymentservices.models import PaymentService
from paymentservices.processors.paypal.tests.mock import AUTHORIZATION_ID, CAPTURE_ID, REFUND_ID
from paymentservices.processors.paypal.tests.test_notifications import _at, paypal_service
from paymentservices.processors.tests.overrides import override_processor
from transactions.models import Capture, Refund, Transaction
from transactions.services.recovery import transaction_sync
from transactions.services.state import SYSTEM, capture_reference
from transactions.tests.factories import CaptureFactory, RefundFactory

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


def _refund_processing(paypal) -> Refund:
    """A refund of 2.50 whose request died after it was recorded: PayPal may have made it."""
    txn = _at(
        paypal,
        status="capture_succeeded",
        payment_service_transaction_id=CAPTURE_ID,
        captured_amount=1000,
        refunded_amount=250,
    )
    return RefundFactory(transaction=txn, amount=250, status="processing")


def _sweep(refund: Refund) -> None:
    """What the pending sweep does with the refund's transaction once its request is given up on."""
    transaction_sync(txn=refund.transaction, actor=SYSTEM, abandoned=True)


def _refund_calls(paypal_api):
    return paypal_api.calls("POST", f"/v2/payments/captures/{CAPTURE_ID}/refund")


def test_a_refund_whose_answer_was_lost_is_sent_again_with_its_reference_and_recorded(paypal, paypal_api):
    paypal_api.answer("/v2/payments/captures/*/refund", code=500)
    refund = _refund_processing(paypal)

    _sweep(refund)  # PayPal gives no answer again: the refund stays, counted as refunded

    refund.refresh_from_db()
    assert (refund.status, refund.transaction.refunded_amount) == ("processing", 250)
    paypal_api.reset()
    paypal_api.answer("/v2/payments/captures/*/refund", example="completed")

    _sweep(refund)
    _sweep(refund)  # settled: not sent a third time

    refund.refresh_from_db()
    assert (refund.status, refund.payment_service_refund_id, refund.transaction.refunded_amount) == (
        "succeeded",
        REFUND_ID,
        250,
    )
    [sent] = _refund_calls(paypal_api)
    assert sent.headers["PayPal-Request-Id"] == str(refund.pk)  # PayPal answers it with the refund it made, once


def test_a_refund_paypal_refuses_when_sent_again_gives_its_amount_back(paypal, paypal_api):
    paypal_api.answer("/v2/payments/captures/*/refund", code=422)
    refund = _refund_processing(paypal)

    _sweep(refund)

    refund.refresh_from_db()
    assert (refund.status, refund.transaction.refunded_amount) == ("declined", 0)


def test_a_refund_paypal_does_not_answer_stays_processing_and_is_recovered_once(paypal, paypal_api, api_client):
    """PayPal may have refunded: the refund is not failed (its amount would be free for a second refund under another
    reference) but answered processing, and the sweep's repeat under its own reference records PayPal's refund."""
    txn = _at(paypal, status="capture_succeeded", payment_service_transaction_id=CAPTURE_ID, captured_amount=1000)
    paypal_api.answer("/v2/payments/captures/*/refund", code=500)
    client = api_client(scopes=["transactions.read", "transactions.write"])

    response = client.post(f"/transactions/{txn.pk}/refunds", {"amount": 300}, format="json")

    assert (response.status_code, response.json()["status"]) == (201, "processing")
    refund = Refund.objects.get(pk=response.json()["id"])
    assert refund.transaction.refunded_amount == 300
    paypal_api.reset()
    paypal_api.answer("/v2/payments/captures/*/refund", example="completed")
    _sweep(refund)
    refund.refresh_from_db()
    assert refund.status == "succeeded"
    assert [call.headers["PayPal-Request-Id"] for call in _refund_calls(paypal_api)] == [str(refund.pk)]


@pytest.fixture
def client(api_client):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.mark.parametrize(
    ("action", "path", "pending", "done", "example"),
    [
        ("capture", "capture", "capture_pending", "capture_succeeded", "completed"),
        ("void", "void", "authorization_void_pending", "authorization_voided", "voided"),
    ],
    ids=["capture", "void"],
)
def test_an_action_whose_connection_paypal_dropped_stays_pending_and_recovery_records_paypals_word(
    paypal, paypal_api, client, action, path, pending, done, example
):
    """PayPal got the request (the mock validated it) and the connection dropped before its answer, twice: PayPal may
    have captured or voided, so the transaction is not put back as authorized but waits for PayPal's word; the sweep
    sends the write again under the same PayPal-Request-Id and records what PayPal says it did."""
    paypal_api.answer(f"/v2/payments/authorizations/*/{path}", dropped=True)
    txn = _at(paypal)

    answer = client.post(f"/transactions/{txn.pk}/{action}", {}, format="json")

    assert (answer.status_code, answer.json()["status"]) == (200, pending)
    sent = paypal_api.calls("POST", f"/v2/payments/authorizations/{AUTHORIZATION_ID}/{path}")
    assert len(sent) == 2  # sent once more with the same PayPal-Request-Id before giving up for now
    assert sent[0].headers["PayPal-Request-Id"] == sent[1].headers["PayPal-Request-Id"]
    if action == "capture":
        assert Capture.objects.get(transaction=txn).status == "pending"
    paypal_api.reset()
    paypal_api.answer(f"/v2/payments/authorizations/*/{path}", example=example)

    synced = transaction_sync(txn=Transaction.objects.get(pk=txn.pk), actor=SYSTEM, abandoned=True)

    assert synced.status == done
    [again] = paypal_api.calls("POST", f"/v2/payments/authorizations/{AUTHORIZATION_ID}/{path}")
    assert again.headers["PayPal-Request-Id"] == sent[0].headers["PayPal-Request-Id"]


def test_a_void_paypal_does_not_answer_again_stays_pending_for_the_next_run(paypal, paypal_api):
    paypal_api.answer("/v2/payments/authorizations/*/void", code=500)
    txn = _at(paypal, status="authorization_void_pending")

    synced = transaction_sync(txn=txn, actor=SYSTEM, abandoned=True)

    assert synced.status == "authorization_void_pending"


def test_a_void_paypal_refuses_when_sent_again_leaves_the_payment_authorized(paypal, paypal_api):
    paypal_api.answer("/v2/payments/authorizations/*/void", code=422)
    txn = _at(paypal, status="authorization_void_pending")

    synced = transaction_sync(txn=txn, actor=SYSTEM, abandoned=True)

    assert synced.status == "authorization_succeeded"


def test_a_capture_that_never_reached_paypal_fails_at_once(paypal, client, settings):
    """Nothing listens where PayPal should be: the request was never sent, so PayPal did nothing and the capture is
    answered failed with the payment authorized as before."""
    override_processor(settings, "paypal", API_BASE="http://127.0.0.1:9", TIMEOUT_SECONDS=2)
    txn = _at(paypal)

    answer = client.post(f"/transactions/{txn.pk}/capture", {}, format="json")

    assert (answer.status_code, answer.json()["status"]) == (200, "authorization_succeeded")
    assert Capture.objects.get(transaction=txn).status == "failed"
