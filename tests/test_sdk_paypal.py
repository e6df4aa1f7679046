"""PayPal end to end against a running server, as merchants and buyers reach it: the official `gr4vy` SDK, unchanged,
for the merchant; a plain HTTP client for the buyer coming back from PayPal; the PayPal mock
(paymentservices/processors/paypal/tests/mock.py: Prism validating every request PayPal's official library sends) as
PayPal. docs/payment-services.md, "PayPal".

The mock's answers are static, so the buyer's approval at PayPal is played by the test: it reads the return URL the
server gave PayPal in the order (the mock's record of the request) and follows it as PayPal would, with PayPal's
`token` (the order id) and `PayerID`.
"""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from django.utils import timezone
from gr4vy import Gr4vy, errors, models

from paymentservices.processors.paypal.tests import mock as paypal
from transactions.models import ThreeDSecureChallenge, Transaction
from transactions.services.challenges import challenges_expire
from transactions.services.recovery import transactions_recover_pending

pytestmark = pytest.mark.django_db(transaction=True)

REDIRECT = "https://shop.example/return?order=42"
PAYPAL = {"method": "paypal", "redirect_url": REDIRECT, "country": "US", "currency": "USD"}
FIELDS = [
    {"key": "client_id", "value": "AeA1QIZXiflr1"},
    {"key": "client_secret", "value": "ECYYrrSHdKfk"},
    {"key": "webhook_id", "value": "8PT597110X687430LKGECATA"},
]


def paypal_service(
    sdk: Gr4vy, *, currencies: tuple[str, ...] = ("USD",), name: str = "PayPal"
) -> models.PaymentService:
    created = sdk.payment_services.create(
        display_name=name,
        payment_service_definition_id="paypal-paypal",
        fields=FIELDS,
        accepted_currencies=list(currencies),
        accepted_countries=["US", "DE"],
    )
    assert isinstance(created, models.PaymentService)
    return created


@pytest.fixture
def service(sdk, paypal_api) -> models.PaymentService:
    paypal_api.answer("/v2/checkout/orders", example="opened")
    paypal_api.answer("/v2/checkout/orders/*/authorize", example="authorized")
    paypal_api.answer("/v2/payments/authorizations/*/capture", example="completed")
    paypal_api.answer("/v2/payments/authorizations/*/void", example="voided")
    paypal_api.answer("/v2/payments/captures/*/refund", example="completed")
    return paypal_service(sdk)


def return_urls(mock: paypal.PayPalMock) -> tuple[str, str]:
    """Where the server asked PayPal to send the buyer back (approved, canceled), from the last order it opened."""
    opened = mock.calls("POST", "/v2/checkout/orders")[-1]
    context = opened.body["payment_source"]["paypal"]["experience_context"]
    return context["return_url"], context["cancel_url"]


def come_back(buyer: httpx.Client, url: str, token: str = paypal.ORDER_ID) -> httpx.Response:
    return buyer.get(url, params={"token": token, "PayerID": "QYR5Z8XDVJNXQ"})


def outcome(response: httpx.Response) -> dict[str, list[str]]:
    assert response.status_code == 303, response.text
    location = urlsplit(response.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == "https://shop.example/return"
    return parse_qs(location.query)


def pending(sdk: Gr4vy, amount: int = 1000) -> models.Transaction:
    created = sdk.transactions.create(amount=amount, currency="USD", country="US", payment_method=PAYPAL)
    assert isinstance(created, models.Transaction)
    assert created.status == "buyer_approval_pending"
    return created


def test_done_when_paypal_authorized_captured_and_refunded_in_part_and_another_voided(sdk, service, paypal_api, buyer):
    created = pending(sdk)
    assert created.payment_method is not None
    assert (created.payment_method.method, created.payment_method.approval_url) == ("paypal", paypal.APPROVE_LINK)
    assert created.payment_service is not None
    assert created.payment_service.id == service.id
    assert created.approval_expires_at is not None
    assert created.payment_service_transaction_id == paypal.ORDER_ID
    [opened] = paypal_api.calls("POST", "/v2/checkout/orders")
    assert opened.headers["PayPal-Request-Id"] == created.id

    back, _ = return_urls(paypal_api)
    query = outcome(come_back(buyer, back))
    assert query == {"order": ["42"], "transaction_id": [created.id], "transaction_status": ["authorization_succeeded"]}

    authorized = sdk.transactions.get(transaction_id=created.id)
    assert (authorized.status, authorized.authorized_amount) == ("authorization_succeeded", 1000)
    assert authorized.payment_service_transaction_id == paypal.AUTHORIZATION_ID
    assert authorized.payment_method is not None
    assert (authorized.payment_method.method, authorized.payment_method.label) == ("paypal", "b***@example.com")
    assert authorized.payment_method.approval_url is None
    assert authorized.raw_response_code == "CREATED"

    captured = sdk.transactions.capture(transaction_id=created.id, amount=600)
    assert (captured.status, captured.captured_amount) == ("capture_succeeded", 600)
    assert captured.payment_service_transaction_id == paypal.CAPTURE_ID
    refund = sdk.transactions.refunds.create(transaction_id=created.id, amount=250)
    assert (refund.status, refund.amount, refund.payment_service_refund_id) == ("succeeded", 250, paypal.REFUND_ID)
    [refund_call] = paypal_api.calls("POST", f"/v2/payments/captures/{paypal.CAPTURE_ID}/refund")
    # Our refund's id rides as its custom_id, so PayPal's notification of it is known as ours.
    assert refund_call.body == {"amount": {"currency_code": "USD", "value": "2.50"}, "custom_id": refund.id}

    second = pending(sdk, amount=500)
    back, _ = return_urls(paypal_api)
    assert outcome(come_back(buyer, back))["transaction_status"] == ["authorization_succeeded"]
    voided = sdk.transactions.void(transaction_id=second.id)
    assert voided.status == "authorization_voided"
    assert len(paypal_api.calls("POST", f"/v2/payments/authorizations/{paypal.AUTHORIZATION_ID}/void")) == 1


def test_no_redirect_url_is_a_400_naming_it_and_nothing_is_written(merchant, service):
    answer = merchant.post(
        "/transactions", json={"amount": 1000, "currency": "USD", "payment_method": {"method": "paypal"}}
    )
    assert answer.status_code == 400
    assert answer.json()["details"][0]["pointer"] == "/payment_method/redirect_url"
    assert not Transaction.objects.exists()


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"payment_method": {**PAYPAL, "currency": "EUR"}}, "/payment_method/currency"),
        ({"payment_method": {**PAYPAL, "redirect_url": "ftp://shop.example/"}}, "/payment_method/redirect_url"),
        ({"payment_method": PAYPAL, "intent": "capture"}, "/intent"),
        ({"payment_method": PAYPAL, "store": True}, "/store"),
        # No PayPal service takes GBP (the sandbox's card service would: routing goes by method).
        ({"payment_method": {"method": "paypal", "redirect_url": REDIRECT}, "currency": "GBP"}, "/currency"),
    ],
)
def test_bad_inputs_are_4xx_envelopes_naming_them(merchant, service, body, pointer):
    answer = merchant.post("/transactions", json={"amount": 1000, "currency": "USD", **body})
    assert answer.status_code == 400, answer.text
    assert pointer in [detail["pointer"] for detail in answer.json()["details"]]
    assert not Transaction.objects.exists()


def test_a_paypal_payment_goes_only_to_a_paypal_service_for_its_currency(sdk, service, merchant):
    euro_only = paypal_service(sdk, currencies=("EUR",), name="PayPal EUR")
    answer = merchant.post(
        "/transactions",
        json={"amount": 1000, "currency": "USD", "payment_method": PAYPAL, "payment_service_id": euro_only.id},
    )
    assert answer.status_code == 400
    assert answer.json()["details"][0]["pointer"] == "/payment_service_id"
    card = merchant.post(
        "/transactions",
        json={
            "amount": 1000,
            "currency": "USD",
            "payment_service_id": service.id,
            "payment_method": {"method": "card", "number": "4111111111111111", "expiration_date": "12/39"},
        },
    )
    assert card.status_code == 400
    assert "takes paypal payments, not card" in card.json()["message"]


def test_no_answer_fails_over_to_the_next_paypal_service_and_a_refusal_is_final(sdk, service, paypal_api):
    paypal_service(sdk, name="PayPal second")
    paypal_api.answer("/v2/checkout/orders", code=500)
    failed = sdk.transactions.create(amount=1000, currency="USD", payment_method=PAYPAL)
    assert failed.status == "authorization_failed"
    assert len(paypal_api.calls("POST", "/v2/checkout/orders")) == 4  # two services, each sent twice

    paypal_api.reset()
    paypal_api.answer("/v2/checkout/orders", code=422)
    declined = sdk.transactions.create(amount=1000, currency="USD", payment_method=PAYPAL)
    assert (declined.status, declined.raw_response_code) == ("authorization_declined", "INSTRUMENT_DECLINED")
    assert len(paypal_api.calls("POST", "/v2/checkout/orders")) == 1


def test_cancel_at_paypal_declines_and_nothing_is_authorized(sdk, service, paypal_api, buyer):
    created = pending(sdk)
    _, cancel = return_urls(paypal_api)
    query = outcome(come_back(buyer, cancel))
    assert query["transaction_status"] == ["authorization_declined"]
    assert sdk.transactions.get(transaction_id=created.id).error_code == "failed_buyer_approval"
    assert paypal_api.calls("POST", "/v2/checkout/orders/*/authorize") == []


def test_a_foreign_token_a_second_return_and_an_expired_one_change_nothing(sdk, service, paypal_api, buyer):
    created = pending(sdk)
    back, _ = return_urls(paypal_api)

    foreign = come_back(buyer, back, token="9XX99999XX9999999")
    assert foreign.status_code == 400
    assert foreign.headers["content-type"].startswith("text/html")
    assert sdk.transactions.get(transaction_id=created.id).status == "buyer_approval_pending"
    unknown = buyer.get(back.replace("/return", "x/return"), params={"token": paypal.ORDER_ID})
    assert unknown.status_code == 404

    assert outcome(come_back(buyer, back))["transaction_status"] == ["authorization_succeeded"]
    again = come_back(buyer, back)
    assert again.status_code == 410
    assert len(paypal_api.calls("POST", "/v2/checkout/orders/*/authorize")) == 1

    late = pending(sdk)
    late_back, _ = return_urls(paypal_api)
    ThreeDSecureChallenge.objects.filter(transaction_id=late.id).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert come_back(buyer, late_back).status_code == 410
    assert challenges_expire() == 1
    expired = sdk.transactions.get(transaction_id=late.id)
    assert (expired.status, expired.error_code) == ("authorization_failed", "incomplete_buyer_approval")
    assert len(paypal_api.calls("POST", "/v2/checkout/orders/*/authorize")) == 1


def test_the_official_sdk_refuses_nothing_it_reads(sdk, service):
    created = pending(sdk)
    listed = sdk.transactions.list(limit=5)
    assert created.id in [item.id for item in listed.result.items]
    with pytest.raises(errors.Error404):
        sdk.transactions.get(transaction_id="00000000-0000-0000-0000-000000000000")


@pytest.mark.parametrize(("held", "authorize_calls"), [("approved", 1), ("authorized", 0), ("created", 0)])
def test_a_return_that_died_before_paypal_answered_is_settled_from_the_order(
    sdk, service, paypal_api, held, authorize_calls
):
    """The buyer's return recorded `processing` and its process died before PayPal's answer was recorded: recovery
    reads the order (`GET /v2/checkout/orders/{id}`) and settles what it finds, authorizing an approved order once."""
    created = pending(sdk)
    ThreeDSecureChallenge.objects.filter(transaction_id=created.id).update(state="completed")
    Transaction.objects.filter(pk=created.id).update(
        status="processing", updated_at=timezone.now() - timedelta(hours=1)
    )
    paypal_api.answer("/v2/checkout/orders/*", example=held)

    recovery = transactions_recover_pending()

    assert recovery.failed == []
    settled = sdk.transactions.get(transaction_id=created.id)
    expected = "authorization_failed" if held == "created" else "authorization_succeeded"
    assert settled.status == expected
    if held != "created":
        assert settled.payment_service_transaction_id == paypal.AUTHORIZATION_ID
    assert len(paypal_api.calls("GET", f"/v2/checkout/orders/{paypal.ORDER_ID}")) == 1
    assert len(paypal_api.calls("POST", "/v2/checkout/orders/*/authorize")) == authorize_calls


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"intent": "capture"}, "/intent"),
        ({"store": True}, "/store"),
        ({"gift_cards": [{"id": "5f9a0b6e-3c1d-4e2f-8a7b-9c0d1e2f3a4b", "amount": 100}]}, "/gift_cards"),
    ],
)
def test_what_an_approval_at_the_processor_refuses_names_no_processor(merchant, service, body, pointer):
    """The rule is the redirect flow's, whichever processor runs the buyer's approval: its words are too."""
    answer = merchant.post("/transactions", json={"amount": 1000, "currency": "USD", "payment_method": PAYPAL, **body})
    assert answer.status_code == 400, answer.text
    assert answer.json()["details"][0]["pointer"] == pointer
    assert "approves at the processor" in answer.json()["message"]
    assert "PayPal" not in answer.json()["message"]
    assert not Transaction.objects.exists()


def _notify(live_server, service: models.PaymentService, event: dict) -> httpx.Response:
    """PayPal's notification of `event`, signed as the double verifies it, to the service's inbound route."""
    body = json.dumps(event)
    url = f"{live_server.url}/inbound/payment-services/{service.id}/notifications"
    headers = {"Content-Type": "application/json", **paypal.signed_headers(event)}
    return httpx.post(url, content=body, headers=headers)


def test_done_when_a_pending_authorization_waits_for_paypal_and_a_dashboard_refund_reaches_the_books(
    sdk, service, paypal_api, buyer, live_server
):
    """PayPal answers the authorization PENDING: no decline, the payment stays `processing`; PayPal's signed
    PAYMENT.AUTHORIZATION.CREATED authorizes it. Captured here, then refunded in PayPal's dashboard: its signed
    PAYMENT.CAPTURE.REFUNDED shows the refund to the official SDK."""
    paypal_api.answer("/v2/checkout/orders/*/authorize", example="pending")
    created = pending(sdk)
    back, _ = return_urls(paypal_api)
    assert outcome(come_back(buyer, back))["transaction_status"] == ["processing"]
    assert sdk.transactions.get(transaction_id=created.id).status == "processing"

    authorization = {"id": paypal.AUTHORIZATION_ID, "status": "CREATED", "custom_id": created.id}
    authorized = {
        "id": "WH-4WG94736NE116391B",
        "event_type": "PAYMENT.AUTHORIZATION.CREATED",
        "resource": authorization,
    }
    assert _notify(live_server, service, authorized).status_code == 200
    assert sdk.transactions.get(transaction_id=created.id).status == "authorization_succeeded"

    sdk.transactions.capture(transaction_id=created.id, amount=1000)
    refund = {
        "id": "7NW12345AB6789012",
        "status": "COMPLETED",
        "amount": {"currency_code": "USD", "value": "4.00"},
        "links": [{"href": f"https://api-m.paypal.com/v2/payments/captures/{paypal.CAPTURE_ID}", "rel": "up"}],
    }
    refunded = {"id": "WH-7YX49823S2290830K", "event_type": "PAYMENT.CAPTURE.REFUNDED", "resource": refund}
    forged = {
        **refunded,
        "id": "WH-FORGED",
        "resource": {**refund, "amount": {"currency_code": "USD", "value": "9.00"}},
    }
    forged_headers = {"Content-Type": "application/json", **paypal.signed_headers(refunded)}
    url = f"{live_server.url}/inbound/payment-services/{service.id}/notifications"
    assert httpx.post(url, content=json.dumps(forged), headers=forged_headers).status_code == 400
    assert _notify(live_server, service, refunded).status_code == 200
    assert _notify(live_server, service, refunded).status_code == 200  # resent

    after = sdk.transactions.get(transaction_id=created.id)
    assert (after.status, after.refunded_amount) == ("capture_succeeded", 400)
    listed = sdk.transactions.refunds.list(transaction_id=created.id)
    assert [(item.amount, item.status, item.payment_service_refund_id) for item in listed.items] == [
        (400, "succeeded", "7NW12345AB6789012")
    ]
