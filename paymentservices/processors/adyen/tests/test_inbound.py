"""Adyen's notifications update transactions as Stripe's do: AUTHORISATION settles a payment whose request died (and
releases a hold for a payment that ended otherwise here), CAPTURE, CANCELLATION and REFUND made in Adyen's Customer
Area reach the transaction, and their failures undo what this server had recorded on Adyen's first "received". Adyen
tells each refund on its own (Stripe tells the total). A notification signed with another service's key changes
nothing."""

from __future__ import annotations

import uuid

import pytest

from payments.connectors import ConnectorResult, Outcome
from payments.tests.assertions import assert_error
from paymentservices.models import InboundNotification, PaymentService
from paymentservices.processors.adyen import PROCESSOR as ADYEN
from paymentservices.processors.adyen.tests.test_connector import HMAC_KEY, MERCHANT, _item, _post, _signed
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Capture, Refund, Transaction, TransactionEvent
from transactions.services.actions import finish_capture
from transactions.services.recovery import transaction_sync
from transactions.services.state import SYSTEM
from transactions.tests.factories import CaptureFactory, RefundFactory, TransactionFactory

pytestmark = pytest.mark.django_db

PAYMENT = "993617895204576J"
OTHER_KEY = "22" * 32


def _adyen(merchant_account, hmac_key: str = HMAC_KEY, name: str = "Adyen") -> PaymentService:
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        definition_id=ADYEN.id,
        display_name=name,
        fields=[
            {"key": "api_key", "value": "AQE_inbound_key_0123"},
            {"key": "merchant_account", "value": MERCHANT},
            {"key": "hmac_key", "value": hmac_key},
        ],
    )


@pytest.fixture
def adyen(merchant_account) -> PaymentService:
    return _adyen(merchant_account)


def _at(adyen, **traits) -> Transaction:
    fields = {"payment_service_transaction_id": PAYMENT, **traits}
    return TransactionFactory(merchant_account=adyen.merchant_account, payment_service=adyen, **fields)


def _modification(event_code: str, txn: Transaction, *, psp: str, amount: int, success: str = "true", ref=None):
    return _signed(
        _item(
            eventCode=event_code,
            success=success,
            pspReference=psp,
            originalReference=PAYMENT,
            merchantReference=ref or f"{txn.pk}:{event_code.lower()}",
            amount={"value": amount, "currency": txn.currency},
        )
    )


def _authorisation(txn: Transaction, *, success: str = "true", psp: str = PAYMENT) -> bytes:
    item = _item(
        eventCode="AUTHORISATION",
        success=success,
        pspReference=psp,
        merchantReference=str(txn.pk),
        amount={"value": txn.amount, "currency": txn.currency},
        reason="" if success == "true" else "Not enough balance",
    )
    del item["originalReference"]
    return _signed(item)


def _names(txn: Transaction) -> list[str]:
    return list(
        TransactionEvent.objects.filter(transaction=txn).order_by("created_at", "id").values_list("name", flat=True)
    )


def test_authorisation_settles_a_payment_whose_request_died(client, adyen):
    txn = TransactionFactory(merchant_account=adyen.merchant_account, payment_service=adyen)  # processing

    assert _post(client, adyen, _authorisation(txn)).status_code == 200
    assert _post(client, adyen, _authorisation(txn)).status_code == 200  # resent

    txn.refresh_from_db()
    assert (txn.status, txn.payment_service_transaction_id, txn.authorized_amount) == (
        "authorization_succeeded",
        PAYMENT,
        txn.amount,
    )
    assert _names(txn) == ["authorization_succeeded"]


def test_a_refused_authorisation_declines_a_payment_whose_request_died(client, adyen):
    txn = TransactionFactory(merchant_account=adyen.merchant_account, payment_service=adyen)

    assert _post(client, adyen, _authorisation(txn, success="false")).status_code == 200

    txn.refresh_from_db()
    assert (txn.status, txn.error_code, txn.raw_response_description) == (
        "authorization_declined",
        "issuer_decline",
        "Not enough balance",
    )


def test_an_authorisation_for_a_payment_that_went_elsewhere_is_cancelled_at_adyen(
    client, adyen, merchant_account, adyen_mock, django_capture_on_commit_callbacks
):
    """Adyen gave no answer in time and the payment failed over to the sandbox; Adyen authorised it after all."""
    adyen_mock.answer("/payments/*/cancels", example="cancel-with-psp-reference")
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)  # at the account's sandbox

    with django_capture_on_commit_callbacks(execute=True):
        assert _post(client, adyen, _authorisation(txn, psp="PSPELSEWHERE0000")).status_code == 200

    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"  # the sandbox's authorization stands
    assert _names(txn) == ["authorization_after_cancel"]
    assert [exchange.url.split("?")[0].removeprefix(adyen_mock.url) for exchange in adyen_mock.exchanges] == [
        "/payments/PSPELSEWHERE0000/cancels"
    ]


def test_an_authorisation_that_is_not_ours_changes_nothing(client, adyen):
    txn = TransactionFactory.build(merchant_account=adyen.merchant_account, id=uuid.uuid4())

    assert _post(client, adyen, _authorisation(txn)).status_code == 200

    assert Transaction.objects.count() == 0


def test_a_capture_and_a_cancel_in_adyens_customer_area_reach_the_transaction(client, adyen):
    captured, voided = (
        _at(adyen, authorized=True),
        _at(adyen, authorized=True, payment_service_transaction_id="PSPV000000000000"),
    )

    _post(client, adyen, _modification("CAPTURE", captured, psp="PSPCAPTURE100000", amount=1000))
    cancel = _signed(
        _item(eventCode="CANCELLATION", pspReference="PSPCANCEL1000000", originalReference="PSPV000000000000")
    )
    _post(client, adyen, cancel)

    captured.refresh_from_db()
    voided.refresh_from_db()
    assert (captured.status, captured.captured_amount) == ("capture_succeeded", 1000)
    assert voided.status == "authorization_voided"


def test_a_failed_capture_makes_the_payment_authorized_again(client, adyen):
    txn = _at(adyen, captured=True)
    capture = CaptureFactory(transaction=txn)

    # The connector's reference of a transaction's first capture: `<transaction>:capture`.
    _post(
        client,
        adyen,
        _modification("CAPTURE_FAILED", txn, psp="PSPCAPTURE200000", amount=txn.amount, ref=f"{txn.pk}:capture"),
    )

    txn.refresh_from_db()
    capture.refresh_from_db()
    assert (txn.status, txn.captured_amount, txn.captured_at) == ("authorization_succeeded", 0, None)
    assert (capture.status, capture.captured_at) == ("failed", None)
    assert _names(txn) == ["capture_failed"]


CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "03/30", "security_code": "737"}


@pytest.mark.parametrize(
    ("event_code", "success"),
    [("CAPTURE_FAILED", "true"), ("CAPTURE", "false")],
    ids=["capture-failed", "capture-false"],
)
def test_a_failed_capture_fails_only_the_capture_it_names(client, api_client, adyen, adyen_mock, event_code, success):
    """Two captures of 300 and 200 (`final: false`) of a 1000 authorization; Adyen could not do the second."""
    adyen_mock.answer("/payments", example="card-direct")
    adyen_mock.answer("/payments/*/captures", example="capture")
    api = api_client(scopes=["*.read", "*.write"])
    body = {"amount": 1000, "currency": "EUR", "payment_method": CARD, "payment_service_id": str(adyen.pk)}
    paid = api.post("/transactions", body, format="json").json()
    url = f"/transactions/{paid['id']}/capture"
    for amount in (300, 200):
        assert api.post(url, {"amount": amount, "final": False}, format="json").status_code == 200
    txn = Transaction.objects.get(pk=paid["id"])

    failed = _signed(
        _item(
            eventCode=event_code,
            success=success,
            pspReference="PSPCAPTURE200000",
            originalReference=txn.payment_service_transaction_id,
            merchantReference=f"{txn.pk}:capture:2",
            amount={"value": 200, "currency": "EUR"},
        )
    )
    assert _post(client, adyen, failed).status_code == 200
    assert _post(client, adyen, failed).status_code == 200  # resent: nothing more

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("capture_succeeded", 300)
    captures = api.get(f"/transactions/{txn.pk}/captures").json()["items"]
    assert [(capture["amount"], capture["status"]) for capture in captures] == [(200, "failed"), (300, "succeeded")]
    event = TransactionEvent.objects.filter(transaction=txn, name="capture_failed").get()
    assert (event.amount, event.details["capture"]) == (200, captures[0]["id"])
    # What stands is 300 of the 1000: a capture may take the 700 left, never more.
    too_much = api.post(url, {"amount": 1000}, format="json")
    assert too_much.status_code == 400
    assert too_much.json()["details"][0]["pointer"] == "/amount"
    assert api.post(url, {"amount": 700}, format="json").json()["captured_amount"] == 1000


def test_a_capture_made_in_the_customer_area_that_failed_is_found_by_adyens_reference_of_it(client, adyen):
    txn = _at(adyen, authorized=True)
    _post(client, adyen, _modification("CAPTURE", txn, psp="PSPCAPTURE100000", amount=txn.amount, ref="by hand"))

    _post(client, adyen, _modification("CAPTURE_FAILED", txn, psp="PSPCAPTURE100000", amount=txn.amount, ref="x"))

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    assert list(txn.captures.values_list("status", flat=True)) == ["failed"]


def test_a_failed_capture_while_a_later_one_is_asked_leaves_that_one_to_its_answer(client, adyen):
    """300 captured (`final: false`) of 1000, a capture of 200 at Adyen now; Adyen could not do the first."""
    txn = _at(adyen, captured=True, amount=1000, captured_amount=300, status="capture_pending")
    first = CaptureFactory(transaction=txn, amount=300, final=False)
    later = CaptureFactory(transaction=txn, sequence=2, amount=200, status="pending", captured_at=None)

    _post(
        client, adyen, _modification("CAPTURE_FAILED", txn, psp="PSPCAPTURE100000", amount=300, ref=f"{txn.pk}:capture")
    )

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("capture_pending", 0)
    assert Capture.objects.get(pk=first.pk).status == "failed"
    finished = finish_capture(txn, capture=later, result=ConnectorResult(outcome=Outcome.APPROVED), actor=SYSTEM)
    assert (finished.status, finished.captured_amount) == ("capture_succeeded", 200)


def test_a_failed_capture_that_names_no_capture_of_ours_is_kept_for_the_operator(client, adyen):
    txn = _at(adyen, captured=True)
    capture = CaptureFactory(transaction=txn)

    _post(client, adyen, _modification("CAPTURE_FAILED", txn, psp="PSPCAPTURE200000", amount=txn.amount, ref="other"))

    txn.refresh_from_db()
    capture.refresh_from_db()
    assert (txn.status, txn.captured_amount, capture.status) == ("capture_succeeded", txn.amount, "succeeded")
    event = TransactionEvent.objects.get(transaction=txn)
    assert (event.name, event.details["notification"]) == ("processor_notification", "CAPTURE_FAILED")
    assert "names no capture" in event.details["unapplied"]


def test_each_refund_at_adyen_is_booked_for_its_own_amount_once(client, adyen):
    txn = _at(adyen, captured=True)  # 1299 captured
    first = _modification("REFUND", txn, psp="PSPREFUND1000000", amount=300, ref="refund in the Customer Area")
    second = _modification("REFUND", txn, psp="PSPREFUND2000000", amount=200, ref="another")

    for payload in (first, second, second):
        assert _post(client, adyen, payload).status_code == 200

    assert sorted(Refund.objects.filter(transaction=txn).values_list("amount", "payment_service_refund_id")) == [
        (200, "PSPREFUND2000000"),
        (300, "PSPREFUND1000000"),
    ]
    assert Transaction.objects.get(pk=txn.pk).refunded_amount == 500


def test_the_notification_of_our_own_refund_books_nothing_more(client, adyen):
    txn = _at(adyen, captured=True, refunded_amount=400)
    ours = RefundFactory(transaction=txn, amount=400, payment_service_refund_id="PSPOURS000000000")

    _post(client, adyen, _modification("REFUND", txn, psp="PSPOURS000000000", amount=400, ref=str(ours.pk)))

    assert list(Refund.objects.filter(transaction=txn)) == [ours]
    assert Transaction.objects.get(pk=txn.pk).refunded_amount == 400


def test_a_failed_refund_gives_its_amount_back_to_what_may_be_refunded(client, adyen):
    txn = _at(adyen, captured=True, refunded_amount=400)
    ours = RefundFactory(transaction=txn, amount=400, payment_service_refund_id="PSPOURS000000000")

    _post(client, adyen, _modification("REFUND_FAILED", txn, psp="PSPOURS000000000", amount=400, ref=str(ours.pk)))
    _post(
        client,
        adyen,
        _modification("REFUND", txn, psp="PSPOURS000000000", amount=400, ref=str(ours.pk), success="false"),
    )

    ours.refresh_from_db()
    assert ours.status == "failed"
    assert Transaction.objects.get(pk=txn.pk).refunded_amount == 0
    assert _names(txn) == ["refund_failed"]


ITEM = "/notificationItems/0/NotificationRequestItem"


@pytest.mark.parametrize("event_code", ["CAPTURE", "REFUND"])
def test_a_signed_notification_with_a_negative_amount_is_refused_and_changes_nothing(client, adyen, event_code):
    """Correctly signed, impossible: a 400 naming the amount, never a 500 (nor a row the database's checks refuse)."""
    txn = _at(adyen, authorized=True) if event_code == "CAPTURE" else _at(adyen, captured=True)
    before = Transaction.objects.values().get(pk=txn.pk)

    response = _post(client, adyen, _modification(event_code, txn, psp="PSPNEGATIVE00000", amount=-700))

    assert_error(response, 400, f"{ITEM}/amount/value", location="body")
    assert Transaction.objects.values().get(pk=txn.pk) == before
    assert (InboundNotification.objects.count(), Refund.objects.count(), _names(txn)) == (0, 0, [])


def test_a_capture_of_nothing_is_acknowledged_and_captures_nothing(client, adyen):
    txn = _at(adyen, authorized=True)

    assert _post(client, adyen, _modification("CAPTURE", txn, psp="PSPZERO000000000", amount=0)).status_code == 200

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    event = TransactionEvent.objects.get(transaction=txn)
    assert (event.name, event.details["unapplied"], event.details["notification"]) == (
        "processor_notification",
        "it captured 0",
        "CAPTURE",
    )


def test_a_refund_of_nothing_books_nothing(client, adyen):
    txn = _at(adyen, captured=True)

    assert _post(client, adyen, _modification("REFUND", txn, psp="PSPZERO000000000", amount=0)).status_code == 200

    assert (Refund.objects.count(), Transaction.objects.get(pk=txn.pk).refunded_amount) == (0, 0)
    assert _names(txn) == ["processor_notification"]


def test_a_notification_signed_with_another_services_key_changes_nothing(client, adyen, merchant_account):
    """Valid HMAC, but from another Adyen service's key (another merchant's Adyen account)."""
    _adyen(merchant_account, hmac_key=OTHER_KEY, name="Adyen (other account)")
    txn = _at(adyen, authorized=True)
    forged = _signed(
        _item(eventCode="CANCELLATION", pspReference="PSPFORGED0000000", originalReference=PAYMENT), key=OTHER_KEY
    )

    response = _post(client, adyen, forged)

    assert_error(response, 400, "/notificationItems/0/NotificationRequestItem/additionalData/hmacSignature")
    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"
    assert InboundNotification.objects.count() == 0
    assert _names(txn) == []


# --- recovery: Adyen cannot be asked by our reference ------------------------------------------------------------


def test_recovery_waits_for_adyens_notification_then_cancels_by_our_reference(adyen, adyen_mock):
    adyen_mock.answer("/cancels", example="cancel-with-own-reference")
    txn = TransactionFactory(merchant_account=adyen.merchant_account, payment_service=adyen)  # its request died

    waiting = transaction_sync(txn=txn, actor=SYSTEM, abandoned=False)
    assert (waiting.status, adyen_mock.exchanges) == ("processing", [])

    given_up = transaction_sync(txn=txn, actor=SYSTEM, abandoned=True)

    assert (given_up.status, given_up.error_code) == ("authorization_failed", "service_error")
    [cancel] = adyen_mock.exchanges
    assert cancel.url.removeprefix(adyen_mock.url) == "/cancels"
    assert (cancel.body["paymentReference"], cancel.body["merchantAccount"]) == (str(txn.pk), MERCHANT)


def test_an_authorisation_after_recovery_gave_up_is_cancelled_at_adyen(
    client, adyen, adyen_mock, django_capture_on_commit_callbacks
):
    adyen_mock.answer("/payments/*/cancels", example="cancel-with-psp-reference")
    txn = TransactionFactory(
        merchant_account=adyen.merchant_account, payment_service=adyen, status="authorization_failed"
    )

    with django_capture_on_commit_callbacks(execute=True):
        assert _post(client, adyen, _authorisation(txn)).status_code == 200

    assert Transaction.objects.get(pk=txn.pk).status == "authorization_failed"
    assert _names(txn) == ["authorization_after_cancel"]
    assert [e.url.removeprefix(adyen_mock.url) for e in adyen_mock.exchanges] == [f"/payments/{PAYMENT}/cancels"]
