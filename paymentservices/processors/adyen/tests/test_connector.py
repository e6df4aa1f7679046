"""The adyen-card connector through Adyen's official library against Prism serving the contract of Adyen's API document
in validating mode (tests/mock.py): every request the library sends must be valid by Adyen's schemas (the
`adyen_mock` fixture fails the test otherwise), and each test names the answer the mock simulates."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import socket
import time
import uuid

import pytest
from Adyen.services.checkout import AdyenCheckoutApi

from payments.connectors.base import AuthorizationRequest, Outcome, PaymentConnector, ThreeDSecureData
from payments.errors import DomainError
from payments.tests.assertions import assert_error
from paymentservices.models import InboundNotification
from paymentservices.processors.adyen import PROCESSOR
from paymentservices.processors.adyen import PROCESSOR as ADYEN
from paymentservices.processors.adyen.codes import REFUSAL_REASONS
from paymentservices.processors.adyen.connector import AdyenConnector
from paymentservices.processors.adyen.tests.mock import (
    ERRORS,
    PAYMENT_PSP,
    REFUND_PSP,
    REFUSALS,
    AdyenTransport,
    prism_adyen,
    result_codes,
)
from paymentservices.processors.seam import CredentialProblem
from paymentservices.processors.tests.environment import environment_reads
from paymentservices.processors.tests.fronts import tcp_front
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.processors.tests.requests import card_request
from paymentservices.services import payment_service_credentials_verify
from paymentservices.tests.factories import PaymentServiceFactory

KEY = "AQE_test_adyen_api_key_0123"
MERCHANT = "TestMerchantECOM"
HMAC_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"


def _request(**extra) -> AuthorizationRequest:
    return card_request(**extra)


@pytest.fixture
def connector(adyen_mock) -> AdyenConnector:
    return AdyenConnector(api_key=KEY, merchant_account=MERCHANT)


def _sent(mock, path: str):
    return [exchange for exchange in mock.exchanges if exchange.url.split("?")[0].endswith(path)]


def test_it_is_a_payment_connector(connector):
    assert isinstance(connector, PaymentConnector)
    assert KEY not in repr(connector)


# --- authorize ---------------------------------------------------------------------------------------------------


def test_authorize_sends_a_manual_capture_card_payment_with_our_reference_as_idempotency_key(connector, adyen_mock):
    adyen_mock.answer("/payments", example="card-direct")
    request = _request(amount=1299)

    result = connector.authorize(request)

    assert result.outcome is Outcome.APPROVED
    assert result.processor_reference == PAYMENT_PSP
    assert result.raw_response_code == "Authorised"
    assert result.cvv_response_code == "match"
    [payment] = _sent(adyen_mock, "/payments")
    assert payment.status == 200
    assert payment.body["amount"] == {"value": 1299, "currency": "EUR"}
    assert payment.body["merchantAccount"] == MERCHANT
    assert payment.body["reference"] == request.reference
    assert payment.headers["Idempotency-Key"] == request.reference
    assert payment.body["additionalData"] == {"manualCapture": "true"}
    assert "captureDelayHours" not in payment.body
    assert payment.body["paymentMethod"]["type"] == "scheme"


def test_authorize_with_capture_asks_adyen_to_capture_at_once(connector, adyen_mock):
    adyen_mock.answer("/payments", example="card-direct")

    assert connector.authorize(_request(capture=True)).outcome is Outcome.APPROVED

    [payment] = _sent(adyen_mock, "/payments")
    assert payment.body["captureDelayHours"] == 0
    assert "manualCapture" not in payment.body.get("additionalData", {})


def test_a_merchant_initiated_payment_with_3ds_results_is_a_valid_request(connector, adyen_mock):
    adyen_mock.answer("/payments", example="card-direct")
    three_d_secure = ThreeDSecureData(
        version="2.2.0",
        cavv="AAABBBCCCDDDEEEFFF==",
        eci="05",
        directory_response="Y",
        directory_transaction_id="c4e59ceb-a382-4d6a-bc87-385d591fa09d",
    )

    result = connector.authorize(
        _request(merchant_initiated=True, previous_scheme_transaction_id="MCC123456789", three_d_secure=three_d_secure)
    )

    assert result.outcome is Outcome.APPROVED
    [payment] = _sent(adyen_mock, "/payments")
    assert payment.body["shopperInteraction"] == "ContAuth"
    assert payment.body["mpiData"]["dsTransID"] == "c4e59ceb-a382-4d6a-bc87-385d591fa09d"


# Every resultCode Adyen's contract lists: what the connector makes of it, and whether it releases the payment.
RESULT_CODES = {
    "Authorised": (Outcome.APPROVED, None, False),
    "Refused": (Outcome.DECLINED, "processing_error", False),
    "Error": (Outcome.DECLINED, "processing_error", False),
    "Cancelled": (Outcome.DECLINED, "cancelled", False),
    "RedirectShopper": (Outcome.DECLINED, "requires_three_d_secure", True),
    "IdentifyShopper": (Outcome.DECLINED, "requires_three_d_secure", True),
    "ChallengeShopper": (Outcome.DECLINED, "requires_three_d_secure", True),
    "PresentToShopper": (Outcome.DECLINED, "unsupported_payment_flow", True),
    "AuthenticationFinished": (Outcome.DECLINED, "unsupported_payment_flow", True),
    "AuthenticationNotRequired": (Outcome.DECLINED, "unsupported_payment_flow", True),
    "PartiallyAuthorised": (Outcome.DECLINED, "insufficient_funds", True),
    "Received": (Outcome.DECLINED, "processing_pending", True),
    "Pending": (Outcome.DECLINED, "processing_pending", True),
    "Success": (Outcome.DECLINED, "unsupported_payment_flow", True),
}


def test_the_table_covers_every_result_code_of_the_document():
    assert sorted(RESULT_CODES) == sorted(result_codes())


@pytest.mark.parametrize("code", sorted(RESULT_CODES))
def test_each_result_code(connector, adyen_mock, code):
    adyen_mock.answer("/payments", example=f"result-{code}")
    adyen_mock.answer("/cancels", example="cancel-with-own-reference")
    request = _request()

    result = connector.authorize(request)

    outcome, error_code, released = RESULT_CODES[code]
    assert (result.outcome, result.error_code) == (outcome, error_code)
    assert result.raw_response_code in (code, "4")  # "4": the refusal reason code Refused and Error carry
    cancels = _sent(adyen_mock, "/cancels")
    assert bool(cancels) is released
    if released:
        assert cancels[0].body == {
            "merchantAccount": MERCHANT,
            "paymentReference": request.reference,
            "reference": request.reference,
        }


@pytest.mark.parametrize(
    "example",
    ["card-3d-secure-2-web", "card-3d-secure-redirect"],
    ids=["identify-shopper", "redirect-shopper"],
)
def test_3ds_answers_are_not_approvals(connector, adyen_mock, example):
    adyen_mock.answer("/payments", example=example)
    adyen_mock.answer("/cancels", example="cancel-with-own-reference")

    result = connector.authorize(_request())

    assert result.outcome is Outcome.DECLINED
    assert result.error_code == "requires_three_d_secure"
    assert result.raw_response_code in ("IdentifyShopper", "RedirectShopper")


def test_the_refusal_table_covers_every_reason_the_mock_simulates():
    assert set(REFUSAL_REASONS) <= set(REFUSALS)


@pytest.mark.parametrize(
    ("code", "error_code"),
    [*sorted(REFUSAL_REASONS.items(), key=lambda item: int(item[0])), ("99", "issuer_decline")],
    ids=lambda value: str(value),
)
def test_refusal_reasons_map_to_upstream_error_codes_and_keep_the_raw_code(connector, adyen_mock, code, error_code):
    adyen_mock.answer("/payments", example=f"refused-{code}")

    result = connector.authorize(_request())

    assert result.outcome is Outcome.DECLINED
    assert result.error_code == error_code
    assert result.raw_response_code == code
    assert result.raw_response_description.startswith(REFUSALS[code])
    assert result.processor_reference == f"SIMREFUSED{code:0>6}"
    assert result.cvv_response_code == "no_match"
    assert _sent(adyen_mock, "/cancels") == []  # a refusal holds nothing


def test_a_request_adyen_refuses_is_a_decline_naming_its_code(connector, adyen_mock):
    adyen_mock.answer("/payments", code=422)

    result = connector.authorize(_request())

    assert result.outcome is Outcome.DECLINED
    assert (result.error_code, result.raw_response_code) == ("invalid_request", ERRORS["422"]["errorCode"])


@pytest.mark.parametrize(
    ("code", "error_code"), [(401, "invalid_service_configuration"), (403, "invalid_service_configuration")]
)
def test_refused_credentials_are_no_answer(connector, adyen_mock, code, error_code):
    adyen_mock.answer("/payments", code=code)

    result = connector.authorize(_request())

    assert result.outcome is Outcome.FAILED
    assert result.error_code == error_code


def test_adyens_5xx_is_no_answer_sent_again_with_the_same_key_then_released(connector, adyen_mock):
    adyen_mock.answer("/payments", code=500)
    adyen_mock.answer("/cancels", example="cancel-with-own-reference")
    request = _request()

    result = connector.authorize(request)

    assert result.outcome is Outcome.FAILED
    assert result.error_code == "service_error"
    payments = _sent(adyen_mock, "/payments")
    assert [p.headers["Idempotency-Key"] for p in payments] == [request.reference] * 2
    assert [c.body["paymentReference"] for c in _sent(adyen_mock, "/cancels")] == [request.reference]


def test_a_stopped_adyen_is_no_answer_not_a_decline(settings, monkeypatch):
    monkeypatch.setattr("paymentservices.processors.adyen.http.SessionHTTPClient", AdyenTransport)
    with prism_adyen() as mock:
        monkeypatch.setattr(AdyenTransport, "mock", mock)
        override_processor(settings, "adyen", API_BASE=mock.url)
        connector = AdyenConnector(api_key=KEY, merchant_account=MERCHANT)
        mock.answer("/payments", example="card-direct")
        assert connector.authorize(_request()).outcome is Outcome.APPROVED
        mock.stop()

        result = connector.authorize(_request())
        capture = connector.capture(processor_reference="PSP1", amount=100, currency="EUR", reference="t:capture")

        assert mock.violations() == []
    assert (result.outcome, result.error_code) == (Outcome.FAILED, "service_error")
    assert capture.outcome is Outcome.FAILED


def test_an_adyen_that_takes_the_request_and_never_answers_is_no_answer(settings, monkeypatch):
    """A read timeout: the request may have reached Adyen, so it is sent once more with the same key, then any payment
    under our reference is cancelled; the answer is FAILED, not a decline."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)  # connections are taken by the kernel and never answered
        override_processor(settings, "adyen", API_BASE=f"http://127.0.0.1:{silent.getsockname()[1]}")
        connector = AdyenConnector(api_key=KEY, merchant_account=MERCHANT, timeout=0.3)

        result = connector.authorize(_request())

    assert (result.outcome, result.error_code, result.raw_response_code) == (
        Outcome.FAILED,
        "service_error",
        "ReadTimeout",
    )


def test_lookup_cannot_ask_adyen_and_says_so(connector, adyen_mock):
    assert connector.lookup(reference=str(uuid.uuid4())) is None
    assert adyen_mock.exchanges == []


# --- modifications -----------------------------------------------------------------------------------------------


def test_capture_refund_and_cancel_act_on_the_payment(connector, adyen_mock):
    adyen_mock.answer("/payments", example="card-direct")
    adyen_mock.answer("/payments/*/captures", example="capture")
    adyen_mock.answer("/payments/*/refunds", example="refund")
    adyen_mock.answer("/payments/*/cancels", example="cancel-with-psp-reference")
    authorized = connector.authorize(_request(amount=5000))
    psp = authorized.processor_reference

    captured = connector.capture(processor_reference=psp, amount=4000, currency="EUR", reference="t1:capture")
    refunded = connector.refund(processor_reference=psp, amount=1000, currency="EUR", reference="r1")
    voided = connector.void(processor_reference=psp, reference="t2:void")

    assert (captured.outcome, refunded.outcome, voided.outcome) == (Outcome.APPROVED,) * 3
    assert captured.processor_reference == psp  # later refunds name the payment
    assert voided.processor_reference == psp
    assert refunded.processor_reference == REFUND_PSP  # the refund's own PSP reference
    assert captured.raw_response_code == "received"
    [capture] = _sent(adyen_mock, f"/payments/{psp}/captures")
    [refund] = _sent(adyen_mock, f"/payments/{psp}/refunds")
    [cancel] = _sent(adyen_mock, f"/payments/{psp}/cancels")
    assert capture.body == {
        "amount": {"value": 4000, "currency": "EUR"},
        "merchantAccount": MERCHANT,
        "reference": "t1:capture",
    }
    assert (capture.headers["Idempotency-Key"], refund.headers["Idempotency-Key"]) == ("t1:capture", "r1")
    assert refund.body["amount"] == {"value": 1000, "currency": "EUR"}
    assert cancel.body == {"merchantAccount": MERCHANT, "reference": "t2:void"}


@pytest.mark.parametrize(("code", "outcome"), [(422, Outcome.DECLINED), (500, Outcome.FAILED), (401, Outcome.FAILED)])
def test_a_refused_or_unanswered_capture(connector, adyen_mock, code, outcome):
    adyen_mock.answer("/payments/*/captures", code=code)

    result = connector.capture(processor_reference=PAYMENT_PSP, amount=100, currency="EUR", reference="c")

    assert result.outcome is outcome


# --- credentials -------------------------------------------------------------------------------------------------


def test_verify_accepts_credentials_adyen_takes(adyen_mock):
    adyen_mock.answer("/paymentMethods", example="basic")
    assert PROCESSOR.verify({"api_key": KEY, "merchant_account": MERCHANT}) is None
    [call] = _sent(adyen_mock, "/paymentMethods")
    assert call.body == {"merchantAccount": MERCHANT}


@pytest.mark.parametrize(
    ("code", "field"),
    [(401, "api_key"), (403, "merchant_account"), (422, "merchant_account")],
    ids=["401", "403", "422"],
)
def test_verify_names_the_field_adyen_refused(adyen_mock, code, field):
    adyen_mock.answer("/paymentMethods", code=code)

    problem = PROCESSOR.verify({"api_key": KEY, "merchant_account": MERCHANT})

    assert isinstance(problem, CredentialProblem)
    assert problem.field == field
    assert KEY not in problem.message


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "pointer"),
    [
        ([{"key": "api_key", "value": ""}, {"key": "merchant_account", "value": MERCHANT}], "/fields/0/value"),
        ([{"key": "api_key", "value": KEY}, {"key": "merchant_account", "value": " "}], "/fields/1/value"),
        (
            [
                {"key": "api_key", "value": KEY},
                {"key": "merchant_account", "value": MERCHANT},
                {"key": "live_url_prefix", "value": "bad/prefix"},
            ],
            "/fields/2/value",
        ),
        (
            [
                {"key": "api_key", "value": KEY},
                {"key": "merchant_account", "value": MERCHANT},
                {"key": "hmac_key", "value": "not-hex"},
            ],
            "/fields/2/value",
        ),
    ],
    ids=["no-key", "blank-account", "bad-prefix", "hmac-not-hex"],
)
def test_verify_refuses_malformed_fields_without_asking_adyen(adyen_mock, merchant_account, fields, pointer):
    """The fields' rules (paymentservices/tests/test_field_rules.py) are checked before Adyen is asked."""
    with pytest.raises(DomainError) as refused:
        payment_service_credentials_verify(merchant_account=merchant_account, definition_id=ADYEN.id, fields=fields)

    assert refused.value.details[0]["pointer"] == pointer
    assert adyen_mock.exchanges == []


def test_a_stopped_adyen_cannot_verify(settings, monkeypatch):
    with prism_adyen() as mock:
        override_processor(settings, "adyen", API_BASE=mock.url)
        mock.stop()
        with pytest.raises(ConnectionError):
            PROCESSOR.verify({"api_key": KEY, "merchant_account": MERCHANT})


def test_the_live_url_comes_from_the_prefix(settings):
    override_processor(settings, "adyen", API_BASE="")
    live = AdyenConnector(api_key=KEY, merchant_account=MERCHANT, live_url_prefix="1797a841fbb37ca7-AdyenDemo")
    test = AdyenConnector(api_key=KEY, merchant_account=MERCHANT)

    assert live._checkout.payments_api.baseUrl == (
        "https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout/v72"
    )
    assert test._checkout.modifications_api.baseUrl == "https://checkout-test.adyen.com/v72"


def test_the_mock_catches_a_request_adyen_would_refuse(adyen_mock):
    """The guard every other test relies on: a request that breaks Adyen's document is seen as a violation."""
    from Adyen import AdyenClient

    checkout = AdyenCheckoutApi(client=AdyenClient(xapikey=KEY, platform="test"))
    checkout.payments_api.baseUrl = adyen_mock.url
    with pytest.raises(Exception):  # noqa: B017, PT011 - Adyen's 422 as the library raises it
        checkout.payments_api.payments({"amount": {"value": "12.99", "currency": "EUR"}, "merchantAccount": MERCHANT})

    assert adyen_mock.violations() != []  # Prism's sl-violations header
    for _ in range(100):  # and its log line, which may be written just after the answer
        if "Violation:" in adyen_mock.output():
            break
        time.sleep(0.05)
    assert "must be integer" in adyen_mock.output()
    adyen_mock.reset()  # the fixture's own check then passes


# --- definition and notifications --------------------------------------------------------------------------------


def test_the_definition():
    fields = {f.key: (f.required, f.secret) for f in ADYEN.fields}
    assert fields == {
        "api_key": (True, True),
        "merchant_account": (True, False),
        "live_url_prefix": (False, False),
        "hmac_key": (False, True),
        "tokenization_hmac_key": (False, True),
        "report_api_key": (False, True),
    }
    assert ADYEN.notification_secret_field == "hmac_key"


def _item(**overrides) -> dict:
    item = {
        "eventCode": "CAPTURE",
        "success": "true",
        "eventDate": "2026-11-25T14:00:00+01:00",
        "merchantAccountCode": MERCHANT,
        "pspReference": "993617894906488A",
        "originalReference": "993617895204576J",
        "merchantReference": "txn-1:capture",
        "amount": {"value": 1299, "currency": "EUR"},
    }
    return {**item, **overrides}


def _signed(item: dict, key: str = HMAC_KEY) -> bytes:
    """Adyen's signature: HMAC-SHA256 (hex key) over the item's fields joined by colons, base64 (written out here, so
    the library's check is tested against an independent signer)."""
    fields = [
        item.get("pspReference", ""),
        item.get("originalReference", ""),
        item.get("merchantAccountCode", ""),
        item.get("merchantReference", ""),
        str(item["amount"]["value"]),
        item["amount"]["currency"],
        item.get("eventCode", ""),
        item.get("success", ""),
    ]
    digest = hmac.new(bytes.fromhex(key), ":".join(map(str, fields)).encode(), hashlib.sha256).digest()
    signed = {**item, "additionalData": {"hmacSignature": base64.b64encode(digest).decode()}}
    return json.dumps({"live": "false", "notificationItems": [{"NotificationRequestItem": signed}]}).encode()


@pytest.fixture
def adyen_service(merchant_account):
    return PaymentServiceFactory(
        definition_id=ADYEN.id,
        display_name="Adyen",
        fields=[
            {"key": "api_key", "value": KEY},
            {"key": "merchant_account", "value": MERCHANT},
            {"key": "hmac_key", "value": HMAC_KEY},
        ],
    )


def _post(client, service, payload: bytes):
    return client.post(
        f"/inbound/payment-services/{service.pk}/notifications", payload, content_type="application/json"
    )


@pytest.mark.django_db
def test_a_signed_notification_reaches_the_handlers_once(client, adyen_service, received):
    payload = _signed(_item())

    first = _post(client, adyen_service, payload)
    again = _post(client, adyen_service, payload)

    assert (first.status_code, again.status_code) == (200, 200)
    assert [(e.event_id, e.event_type, e.object_id, e.reference) for e in received] == [
        ("CAPTURE:993617894906488A:true", "CAPTURE", "993617894906488A", "txn-1:capture")
    ]
    assert (received[0].change, received[0].amount, received[0].payment_reference) == (
        "captured",
        1299,
        "993617895204576J",
    )
    assert received[0].amount_is_total is False
    assert received[0].data["success"] == "true"
    assert "additionalData" not in received[0].data
    assert InboundNotification.objects.count() == 1


@pytest.mark.django_db
def test_an_authorisation_names_the_payment_itself(client, adyen_service, received):
    item = _item(
        eventCode="AUTHORISATION", originalReference="", pspReference="PSPAUTH000000000", merchantReference="txn-2"
    )
    del item["originalReference"]

    assert _post(client, adyen_service, _signed(item)).status_code == 200

    assert (received[0].object_id, received[0].reference, received[0].payment_reference) == (
        "PSPAUTH000000000",
        "txn-2",
        "PSPAUTH000000000",
    )
    assert (received[0].authorization.outcome, received[0].authorization.processor_reference) == (
        Outcome.APPROVED,
        "PSPAUTH000000000",
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("event_code", "success", "change"),
    [
        ("CAPTURE", "true", "captured"),
        ("CAPTURE", "false", "capture_failed"),
        ("CAPTURE_FAILED", "true", "capture_failed"),
        ("CANCELLATION", "true", "voided"),
        ("CANCELLATION", "false", None),
        ("REFUND", "true", "refunded"),
        ("REFUND", "false", "refund_failed"),
        ("REFUND_FAILED", "true", "refund_failed"),
        ("REFUNDED_REVERSED", "true", "refund_failed"),
        ("REPORT_AVAILABLE", "true", None),
    ],
)
def test_what_each_notification_means_for_the_payment(client, adyen_service, received, event_code, success, change):
    assert _post(client, adyen_service, _signed(_item(eventCode=event_code, success=success))).status_code == 200

    assert (received[0].change, received[0].authorization) == (change, None)


HMAC_POINTER = "/notificationItems/0/NotificationRequestItem/additionalData/hmacSignature"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("case", "pointer"),
    [
        ("other-key", HMAC_POINTER),
        ("tampered-amount", HMAC_POINTER),
        ("tampered-success", HMAC_POINTER),
        ("unsigned", HMAC_POINTER),
        ("empty-signature", HMAC_POINTER),
        ("not-json", "/notificationItems"),
        ("no-items", "/notificationItems"),
        ("two-items", "/notificationItems"),
    ],
    ids=lambda value: value if not value.startswith("/") else "",
)
def test_a_forged_or_unsigned_notification_is_refused_and_changes_nothing(
    client, adyen_service, received, case, pointer
):
    other_key = "11" * 32
    payloads = {
        "other-key": lambda: _signed(_item(), other_key),
        "tampered-amount": lambda: _signed(_item()).replace(b'"value": 1299', b'"value": 1'),
        "tampered-success": lambda: _signed(_item(success="false")).replace(
            b'"success": "false"', b'"success": "true"'
        ),
        "unsigned": lambda: json.dumps({"notificationItems": [{"NotificationRequestItem": _item()}]}).encode(),
        "empty-signature": lambda: json.dumps(
            {"notificationItems": [{"NotificationRequestItem": {**_item(), "additionalData": {"hmacSignature": ""}}}]}
        ).encode(),
        "not-json": lambda: b"{not json",
        "no-items": lambda: b'{"live": "false", "notificationItems": []}',
        "two-items": lambda: json.dumps(
            {"notificationItems": json.loads(_signed(_item()))["notificationItems"] * 2}
        ).encode(),
    }

    response = _post(client, adyen_service, payloads[case]())

    assert_error(response, 400, pointer, location="body")
    assert received == []
    assert InboundNotification.objects.count() == 0


ITEM_POINTER = "/notificationItems/0/NotificationRequestItem"


@pytest.mark.django_db
def test_a_colon_cannot_move_a_signed_fields_boundary(client, adyen_service, received):
    """Adyen's HMAC signs the fields joined by ':'. Moving part of `merchantReference` into `merchantAccountCode` keeps
    the signed string, and so the signature: the library takes it; the field's shape does not."""
    from Adyen.util import is_valid_hmac_notification

    signed = json.loads(_signed(_item(merchantReference="txn-1:capture")))
    item = signed["notificationItems"][0]["NotificationRequestItem"]
    shifted = {**item, "merchantAccountCode": f"{MERCHANT}:txn-1", "merchantReference": "capture"}
    assert is_valid_hmac_notification(shifted, HMAC_KEY)
    payload = json.dumps({"notificationItems": [{"NotificationRequestItem": shifted}]}).encode()

    response = _post(client, adyen_service, payload)

    assert_error(response, 400, f"{ITEM_POINTER}/merchantAccountCode", location="body")
    assert received == []
    assert InboundNotification.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"pspReference": "99361789:4906488"}, "pspReference"),
        ({"pspReference": "PSPSHORT"}, "pspReference"),
        ({"pspReference": "993617894906488A0"}, "pspReference"),
        ({"pspReference": "99361789490648٨A"}, "pspReference"),
        ({"originalReference": "993617895204:76J"}, "originalReference"),
        ({"originalReference": None}, "originalReference"),
        ({"merchantAccountCode": "Test:Merchant"}, "merchantAccountCode"),
        ({"merchantAccountCode": ""}, "merchantAccountCode"),
        ({"merchantReference": "txn-1\ncapture"}, "merchantReference"),
        ({"merchantReference": "r" * 81}, "merchantReference"),
        ({"eventCode": "CAPTURE:true"}, "eventCode"),
        ({"eventCode": "capture"}, "eventCode"),
        ({"success": "true:"}, "success"),
        ({"success": True}, "success"),
        ({"amount": {"value": "1299", "currency": "EUR"}}, "amount/value"),
        ({"amount": {"value": 12.99, "currency": "EUR"}}, "amount/value"),
        ({"amount": {"value": True, "currency": "EUR"}}, "amount/value"),
        ({"amount": {"value": -700, "currency": "EUR"}}, "amount/value"),
        ({"amount": {"value": 2**63, "currency": "EUR"}}, "amount/value"),
        ({"amount": {"value": 1299, "currency": "EU:"}}, "amount/currency"),
        ({"amount": {"value": 1299, "currency": "eur"}}, "amount/currency"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_every_signed_field_has_its_shape_before_anything_trusts_it(client, adyen_service, received, overrides, field):
    """Signed with the service's key, so only the shape can refuse it (Adyen's webhook document: a 16-character
    `pspReference`, a three-letter currency, minor units, ...)."""
    payload = _signed(_item(**overrides))

    response = _post(client, adyen_service, payload)

    assert_error(response, 400, f"{ITEM_POINTER}/{field}", location="body")
    assert received == []
    assert InboundNotification.objects.count() == 0


@pytest.mark.django_db
def test_an_event_this_server_does_not_act_on_may_name_another_object(client, adyen_service, received):
    """A report's notification names its file in `pspReference`: acknowledged (nothing to change), not refused."""
    payload = _signed(_item(eventCode="REPORT_AVAILABLE", pspReference="settlement_detail_report_batch_7.csv"))

    assert _post(client, adyen_service, payload).status_code == 200

    assert (received[0].event_type, received[0].change) == ("REPORT_AVAILABLE", None)


# --- through the API ---------------------------------------------------------------------------------------------

ADYEN_FIELDS = [
    {"key": "api_key", "value": KEY},
    {"key": "merchant_account", "value": MERCHANT},
    {"key": "hmac_key", "value": HMAC_KEY},
]


@pytest.fixture
def writer(api_client):
    return api_client(scopes=["payment-services.read", "payment-services.write"])


@pytest.mark.django_db
def test_an_adyen_service_answers_its_plain_fields_only(writer, merchant_account):
    payload = {
        "display_name": "Adyen EU",
        "payment_service_definition_id": ADYEN.id,
        "fields": ADYEN_FIELDS,
        "accepted_currencies": ["EUR"],
        "accepted_countries": ["NL", "DE"],
    }

    response = writer.post("/payment-services", payload, format="json")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["fields"] == [{"key": "merchant_account", "value": MERCHANT}]
    assert KEY not in response.content.decode()
    assert HMAC_KEY not in response.content.decode()
    assert body["webhook_url"].endswith(f"/inbound/payment-services/{body['id']}/notifications")


@pytest.mark.django_db
def test_verify_through_the_api_asks_adyen_and_names_the_refused_field(writer, merchant_account, adyen_mock):
    payload = {"payment_service_definition_id": ADYEN.id, "fields": ADYEN_FIELDS}
    adyen_mock.answer("/paymentMethods", example="basic")

    assert writer.post("/payment-services/verify", payload, format="json").status_code == 200
    adyen_mock.answer("/paymentMethods", code=401)
    body = assert_error(writer.post("/payment-services/verify", payload, format="json"), 400, "/fields/0/value")

    assert "api_key" in body["message"]
    assert KEY not in json.dumps(body)
    assert [call.status for call in _sent(adyen_mock, "/paymentMethods")] == [200, 401]


@pytest.mark.django_db
def test_verify_of_an_unreachable_adyen_is_a_502(writer, merchant_account, settings):
    from tests.servers import free_port

    override_processor(settings, "adyen", API_BASE=f"http://127.0.0.1:{free_port()}")
    payload = {"payment_service_definition_id": ADYEN.id, "fields": ADYEN_FIELDS}

    assert_error(writer.post("/payment-services/verify", payload, format="json"), 502)


def test_calls_in_a_worker_share_one_connection_to_adyen(adyen_mock, settings):
    adyen_mock.answer("*/payments", example="card-direct")  # under the front's URL, not the mock's own
    with tcp_front(adyen_mock.port) as front:
        override_processor(settings, "adyen", API_BASE=front.url)
        for _ in range(3):  # three payments, each with its own connector and deadline, as routing makes them
            connector = AdyenConnector(api_key=KEY, merchant_account=MERCHANT, deadline=time.monotonic() + 30)
            assert connector.authorize(_request()).outcome is Outcome.APPROVED

        assert len(front.accepted) == 1


def test_the_environment_is_read_once_per_host_not_on_every_call(connector, adyen_mock, monkeypatch):
    reads = environment_reads(monkeypatch, "adyen")
    adyen_mock.answer("/payments", example="card-direct")

    for _ in range(3):
        assert connector.authorize(_request()).outcome is Outcome.APPROVED

    assert len(reads) == 1
