"""The paypal-paypal connector against the PayPal mock (tests/mock.py): Prism validating every request
PayPal's official library sends against PayPal's Orders v2 and Payments v2 documents, the suite's own token call,
and the mock's named answers."""

from __future__ import annotations

import base64

import pytest
import requests

from payments.connectors import Outcome, RedirectConnector, RedirectRequest
from paymentservices.processors.paypal import PROCESSOR as PAYPAL
from paymentservices.processors.paypal import PayPalConnector
from paymentservices.processors.paypal.connector import AuthorizationPending, masked_email, money
from paymentservices.processors.paypal.rules import CLIENT_ID, CLIENT_SECRET, WEBHOOK_ID
from paymentservices.processors.paypal.tests import mock as mock_answers
from paymentservices.processors.sessions import thread_session

OPENING = RedirectRequest(
    amount=1000,
    currency="USD",
    reference="7d7a0c4e-2b1e-4c55-a8b6-0f3c2b7a9e11",
    return_url="https://payments.example/buyer-approvals/tok/return",
    cancel_url="https://payments.example/buyer-approvals/tok/cancel",
    description="Order 42",
)


def connector(client_id: str = "AeA1QIZXiflr1") -> PayPalConnector:
    return PayPalConnector(client_id=client_id, client_secret="ECYYrrSHdKfk")


def test_the_definition_takes_paypal_with_a_rule_for_each_field():
    assert (PAYPAL.method, PAYPAL.mode, PAYPAL.display_name) == ("paypal", "redirect", "PayPal")
    assert [(f.key, f.secret, f.rule) for f in PAYPAL.fields] == [
        ("client_id", False, CLIENT_ID),
        ("client_secret", True, CLIENT_SECRET),
        ("webhook_id", False, WEBHOOK_ID),
    ]
    for rule in (CLIENT_ID, CLIENT_SECRET, WEBHOOK_ID):
        assert rule.refusal(rule.example) is None
        assert rule.refusal("https://evil.example/") is not None
    assert isinstance(connector(), RedirectConnector)


def test_an_order_is_opened_with_intent_authorize_and_our_reference_as_its_request_id(paypal_api):
    paypal_api.answer("/v2/checkout/orders", example="opened")

    result = connector().redirect_begin(OPENING)

    assert result.outcome is Outcome.BUYER_ACTION
    assert (result.processor_reference, result.approval_link) == (mock_answers.ORDER_ID, mock_answers.APPROVE_LINK)
    [token] = paypal_api.calls("POST", "/v1/oauth2/token")
    assert token.headers["Authorization"].startswith("Basic ")
    [opened] = paypal_api.calls("POST", "/v2/checkout/orders")
    assert opened.headers["PayPal-Request-Id"] == OPENING.reference
    assert opened.headers["Authorization"] == f"Bearer {mock_answers.ACCESS_TOKEN}"
    assert opened.body["intent"] == "AUTHORIZE"
    [unit] = opened.body["purchase_units"]
    assert unit["amount"] == {"currency_code": "USD", "value": "10.00"}
    assert unit["custom_id"] == OPENING.reference
    context = opened.body["payment_source"]["paypal"]["experience_context"]
    assert (context["return_url"], context["cancel_url"]) == (OPENING.return_url, OPENING.cancel_url)


def test_an_order_without_an_approve_link_is_no_answer(paypal_api):
    paypal_api.answer("/v2/checkout/orders", example="nolink")
    result = connector().redirect_begin(OPENING)
    assert result.outcome is Outcome.FAILED
    assert result.approval_link is None


def test_the_approved_order_is_authorized_and_names_its_authorization(paypal_api):
    paypal_api.answer("/v2/checkout/orders/*/authorize", example="authorized")

    result = connector().redirect_authorize(processor_reference=mock_answers.ORDER_ID, reference="ref:authorize")

    assert result.outcome is Outcome.APPROVED
    assert (result.processor_reference, result.raw_response_code) == (mock_answers.AUTHORIZATION_ID, "CREATED")
    assert result.payer_label == "b***@example.com"
    [call] = paypal_api.calls("POST", f"/v2/checkout/orders/{mock_answers.ORDER_ID}/authorize")
    assert call.headers["PayPal-Request-Id"] == "ref:authorize"


def test_a_denied_authorization_is_a_decline_with_paypals_status(paypal_api):
    paypal_api.answer("/v2/checkout/orders/*/authorize", example="denied")
    result = connector().redirect_authorize(processor_reference=mock_answers.ORDER_ID, reference="ref:authorize")
    assert (result.outcome, result.raw_response_code) == (Outcome.DECLINED, "DENIED")


def test_paypals_refusal_is_a_decline_naming_its_issue(paypal_api):
    paypal_api.answer("/v2/checkout/orders/*/authorize", code=422)
    result = connector().redirect_authorize(processor_reference=mock_answers.ORDER_ID, reference="ref:authorize")
    assert result.outcome is Outcome.DECLINED
    assert (result.error_code, result.raw_response_code) == ("declined", "INSTRUMENT_DECLINED")


def test_a_5xx_is_no_answer_and_the_write_is_sent_once_more_with_the_same_request_id(paypal_api):
    paypal_api.answer("/v2/checkout/orders", code=500)
    result = connector().redirect_begin(OPENING)
    assert (result.outcome, result.error_code, result.raw_response_code) == (Outcome.FAILED, "service_error", "500")
    calls = paypal_api.calls("POST", "/v2/checkout/orders")
    assert [call.headers["PayPal-Request-Id"] for call in calls] == [OPENING.reference] * 2


def test_the_orders_status_is_read_by_its_id(paypal_api):
    paypal_api.answer("/v2/checkout/orders/*", example="approved")
    approved = connector().redirect_status(processor_reference=mock_answers.ORDER_ID)
    assert (approved.outcome, approved.raw_response_code) == (Outcome.BUYER_ACTION, "APPROVED")
    paypal_api.answer("/v2/checkout/orders/*", example="authorized")
    held = connector().redirect_status(processor_reference=mock_answers.ORDER_ID)
    assert (held.outcome, held.processor_reference) == (Outcome.APPROVED, mock_answers.AUTHORIZATION_ID)


def test_capture_void_and_refund_go_through_payments_v2_with_our_references(paypal_api):
    paypal_api.answer("/v2/payments/authorizations/*/capture", example="completed")
    paypal_api.answer("/v2/payments/captures/*/refund", example="completed")
    paypal = connector()

    captured = paypal.capture(
        processor_reference=mock_answers.AUTHORIZATION_ID, amount=600, currency="USD", reference="t:capture"
    )
    refunded = paypal.refund(
        processor_reference=captured.payment_reference or "", amount=250, currency="USD", reference="r1"
    )
    voided = paypal.void(processor_reference=mock_answers.AUTHORIZATION_ID, reference="t:void")

    assert (captured.outcome, captured.payment_reference) == (Outcome.APPROVED, mock_answers.CAPTURE_ID)
    assert captured.processor_reference == mock_answers.CAPTURE_ID  # the capture's own id, as its notifications name it
    assert (refunded.outcome, refunded.processor_reference) == (Outcome.APPROVED, mock_answers.REFUND_ID)
    assert (voided.outcome, voided.raw_response_code) == (Outcome.APPROVED, "VOIDED")
    [capture] = paypal_api.calls("POST", f"/v2/payments/authorizations/{mock_answers.AUTHORIZATION_ID}/capture")
    assert capture.body == {"amount": {"currency_code": "USD", "value": "6.00"}, "final_capture": True}
    assert capture.headers["PayPal-Request-Id"] == "t:capture"
    [refund] = paypal_api.calls("POST", f"/v2/payments/captures/{mock_answers.CAPTURE_ID}/refund")
    assert (refund.body, refund.headers["PayPal-Request-Id"]) == (
        {"amount": money(250, "USD"), "custom_id": "r1"},
        "r1",
    )


def test_a_declined_capture_is_a_decline(paypal_api):
    paypal_api.answer("/v2/payments/authorizations/*/capture", example="declined")
    result = connector().capture(processor_reference="A1", amount=600, currency="USD", reference="t:capture")
    assert (result.outcome, result.raw_response_code) == (Outcome.DECLINED, "DECLINED")


def test_credentials_are_checked_with_a_token_call(paypal_api):
    assert connector().verify() is None
    problem = connector(mock_answers.REFUSED_CLIENT).verify()
    assert problem is not None
    assert problem.field == "client_secret"


def test_refused_credentials_are_no_answer_never_a_decline(paypal_api):
    result = connector(mock_answers.REFUSED_CLIENT).redirect_begin(OPENING)
    assert (result.outcome, result.error_code) == (Outcome.FAILED, "invalid_service_configuration")
    assert paypal_api.calls("POST", "/v2/checkout/orders") == []


def test_an_approve_link_that_is_not_paypals_never_reaches_the_buyer(paypal_api):
    paypal_api.answer("/v2/checkout/orders", example="foreignlink")
    result = connector().redirect_begin(OPENING)
    assert result.outcome is Outcome.FAILED
    assert result.approval_link is None


def test_an_approve_link_under_the_configured_paypal_is_the_buyers_page(paypal_api):
    """PAYPAL_API_BASE stands in for PayPal: its own approval page (the mock's, as docs/guides/paypal.md runs it)."""
    paypal_api.approves_here = True
    paypal_api.answer("/v2/checkout/orders", example="opened")
    result = connector().redirect_begin(OPENING)
    assert result.approval_link == f"{paypal_api.url}/checkoutnow?token={mock_answers.ORDER_ID}"
    assert paypal_api.last_return_url == OPENING.return_url


def test_amounts_are_sent_in_the_currencys_own_decimals():
    assert money(1000, "JPY") == {"currency_code": "JPY", "value": "1000"}
    assert money(1, "EUR") == {"currency_code": "EUR", "value": "0.01"}
    assert masked_email("jane.doe@example.com") == "j***@example.com"
    assert masked_email("no-at-sign") is None


def test_an_authorization_paypal_holds_pending_is_neither_approval_nor_decline(paypal_api):
    paypal_api.answer("/v2/checkout/orders/*/authorize", example="pending")
    paypal_api.answer("/v2/checkout/orders/*", example="pending")

    with pytest.raises(AuthorizationPending):
        connector().redirect_authorize(processor_reference=mock_answers.ORDER_ID, reference="t:authorize")
    with pytest.raises(AuthorizationPending):
        connector().redirect_status(processor_reference=mock_answers.ORDER_ID)


def test_the_connectors_of_one_app_share_its_access_token(paypal_api):
    paypal_api.answer("/v2/checkout/orders", example="opened")

    for client_id in ("AeA1QIZXiflr1", "AeA1QIZXiflr1", "AeB2other"):  # one connector a payment, as routing makes
        assert connector(client_id).redirect_begin(OPENING).outcome is Outcome.BUYER_ACTION

    asked = [
        base64.b64decode(call.headers["Authorization"][6:]).decode().partition(":")[0]
        for call in paypal_api.calls("POST", "/v1/oauth2/token")
    ]
    assert asked == ["AeA1QIZXiflr1", "AeB2other"]
    assert len(paypal_api.calls("POST", "/v2/checkout/orders")) == 3


def test_a_token_paypal_refuses_is_asked_for_again(paypal_api):
    paypal_api.answer("/v2/checkout/orders", example="opened")
    assert connector().redirect_begin(OPENING).outcome is Outcome.BUYER_ACTION
    paypal_api.answer("/v2/checkout/orders", code=401)  # revoked, or ended before its time

    refused = connector().redirect_begin(OPENING)
    paypal_api.errors.clear()
    again = connector().redirect_begin(OPENING)

    assert (refused.outcome, refused.error_code) == (Outcome.FAILED, "invalid_service_configuration")
    assert again.outcome is Outcome.BUYER_ACTION
    assert len(paypal_api.calls("POST", "/v1/oauth2/token")) == 2


def test_paypal_is_called_on_the_threads_kept_session(paypal_api, monkeypatch):
    sessions: list[requests.Session] = []
    original = requests.Session.request

    def spy(self, method, url, **kwargs):
        sessions.append(self)
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(requests.Session, "request", spy)
    paypal_api.answer("/v2/checkout/orders", example="opened")
    for _ in range(2):
        assert connector().redirect_begin(OPENING).outcome is Outcome.BUYER_ACTION

    assert len(sessions) == 3  # the token, then an order a payment
    assert all(session is thread_session("paypal") for session in sessions)
