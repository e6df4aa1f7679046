"""Stripe and Adyen side by side, through the API: Stripe (localstripe, a real process) first, Adyen (Prism validating
every request by the contract of Adyen's document) second. With Stripe killed a payment fails over to Adyen; a
retryable decline goes on to the next service only when the declining service allows cascading; a hard decline never
does. The events and the answer's `payment_service` show which service was asked and which decided."""

from __future__ import annotations

import os
import signal

import pytest

from payments.connectors.base import ConnectorResult, Outcome
from paymentservices.models import PaymentService
from paymentservices.processors.adyen import PROCESSOR as ADYEN
from paymentservices.processors.adyen.tests.mock import PAYMENT_PSP
from paymentservices.processors.stripe import PROCESSOR as STRIPE
from paymentservices.processors.stripe.tests.mock import localstripe
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.routing import RETRYABLE_DECLINES, try_next
from paymentservices.services import payment_service_update
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import TransactionEvent

pytestmark = pytest.mark.django_db

CARD = {"method": "card", "number": "4242424242424242", "expiration_date": "12/34", "security_code": "123"}
# Stripe's test card declined with `processing_error` (an acquirer-side failure, retryable elsewhere).
PROCESSING_ERROR = "4000000000000119"
# Stripe's test cards for hard declines, and the `error_code` each is answered with.
HARD_DECLINES = {
    "4000000000009987": "restricted_card",  # lost card
    "4000000000009979": "restricted_card",  # stolen card
    "4000000000000069": "expired_card",
    "4000000000000127": "incorrect_cvv",
    "4000000000009995": "insufficient_funds",
    "4000000000000002": "issuer_decline",  # generic decline
}
ADYEN_PAYMENT = PAYMENT_PSP  # the pspReference of the mock's `card-direct` answer


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["*.read", "*.write"])


@pytest.fixture
def adyen(merchant_account) -> PaymentService:
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        definition_id=ADYEN.id,
        display_name="Adyen",
        fields=[{"key": "api_key", "value": "AQE_cascade_key_0123"}, {"key": "merchant_account", "value": "ShopECOM"}],
        accepted_currencies=["USD"],
        accepted_countries=["US"],
        position=1,
    )


@pytest.fixture
def stripe_first(merchant_account, adyen) -> PaymentService:
    """Stripe first, Adyen second, the account's sandbox last."""
    return PaymentServiceFactory(merchant_account=merchant_account, definition_id=STRIPE.id, position=1)


def _pay(client, number: str = CARD["number"]):
    response = client.post(
        "/transactions",
        {"amount": 2500, "currency": "USD", "country": "US", "payment_method": {**CARD, "number": number}},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def _attempts(body) -> list[tuple[str, str]]:
    """Each attempt's event and the service it names, in order."""
    events = TransactionEvent.objects.filter(transaction_id=body["id"]).order_by("created_at", "id")
    return [
        (event.name, event.details["payment_service_id"]) for event in events if "payment_service_id" in event.details
    ]


def _history(client, body) -> list[str]:
    return [item["name"] for item in client.get(f"/transactions/{body['id']}/events").json()["items"]]


def test_with_stripe_killed_a_payment_fails_over_to_adyen(client, settings, stripe_first, adyen, adyen_mock):
    adyen_mock.answer("/payments", example="card-direct")
    with localstripe() as fake:
        override_processor(settings, "stripe", API_BASE=fake.url)
        os.kill(fake.process.pid, signal.SIGKILL)
        fake.process.wait()

        body = _pay(client)

    assert body["status"] == "authorization_succeeded"
    assert body["payment_service"]["id"] == str(adyen.pk)
    assert body["payment_service_transaction_id"] == ADYEN_PAYMENT
    assert _attempts(body) == [
        ("authorization_attempt_failed", str(stripe_first.pk)),
        ("authorization_succeeded", str(adyen.pk)),
    ]
    assert "payment-connector-response-transaction-authorization-failed" in _history(client, body)


def test_a_retryable_decline_at_stripe_cascades_to_adyen_when_stripe_allows_it(
    client, stripe_api, stripe_first, adyen, adyen_mock
):
    payment_service_update(service=stripe_first, cascade_retryable_declines=True)
    adyen_mock.answer("/payments", example="card-direct")

    body = _pay(client, PROCESSING_ERROR)

    assert (body["status"], body["payment_service"]["id"]) == ("authorization_succeeded", str(adyen.pk))
    assert _attempts(body) == [
        ("authorization_attempt_declined", str(stripe_first.pk)),
        ("authorization_succeeded", str(adyen.pk)),
    ]
    declined = TransactionEvent.objects.get(transaction_id=body["id"], name="authorization_attempt_declined")
    assert (declined.details["error_code"], declined.details["raw_response_code"]) == (
        "processing_error",
        "processing_error",
    )
    assert declined.details["next_payment_service_id"] == str(adyen.pk)
    assert "payment-connector-response-transaction-declined" in _history(client, body)


def test_without_cascading_a_retryable_decline_at_stripe_is_final(client, stripe_api, stripe_first, adyen, adyen_mock):
    body = _pay(client, PROCESSING_ERROR)

    assert (body["status"], body["error_code"]) == ("authorization_declined", "processing_error")
    assert body["payment_service"]["id"] == str(stripe_first.pk)
    assert _attempts(body) == [("authorization_declined", str(stripe_first.pk))]
    assert adyen_mock.exchanges == []


@pytest.mark.parametrize(("number", "error_code"), HARD_DECLINES.items(), ids=lambda value: str(value)[-4:])
def test_a_hard_decline_never_cascades(client, stripe_api, stripe_first, adyen, adyen_mock, number, error_code):
    payment_service_update(service=stripe_first, cascade_retryable_declines=True)

    body = _pay(client, number)

    assert (body["status"], body["error_code"]) == ("authorization_declined", error_code)
    assert body["payment_service"]["id"] == str(stripe_first.pk)
    assert _attempts(body) == [("authorization_declined", str(stripe_first.pk))]
    assert adyen_mock.exchanges == []


@pytest.mark.parametrize(
    ("refusal", "allowed", "decided_by"),
    [
        ("refused-2", True, "stripe"),  # Refused: do_not_honor
        ("refused-9", True, "stripe"),  # Issuer Unavailable
        ("refused-4", True, "stripe"),  # Acquirer Error: processing_error
        ("refused-2", False, "adyen"),
        ("refused-8", True, "adyen"),  # Invalid Card Number: hard
        ("refused-12", True, "adyen"),  # Not enough balance: the card's, wherever it goes
        ("refused-20", True, "adyen"),  # FRAUD
    ],
)
def test_a_retryable_decline_at_adyen_cascades_to_stripe_when_adyen_allows_it(
    client, merchant_account, stripe_api, adyen, adyen_mock, refusal, allowed, decided_by
):
    stripe = PaymentServiceFactory(merchant_account=merchant_account, definition_id=STRIPE.id, position=2)
    payment_service_update(service=adyen, cascade_retryable_declines=allowed)
    adyen_mock.answer("/payments", example=refusal)

    body = _pay(client)

    decider = {"stripe": stripe, "adyen": adyen}[decided_by]
    assert body["payment_service"]["id"] == str(decider.pk)
    expected = "authorization_succeeded" if decider == stripe else "authorization_declined"
    assert body["status"] == expected
    cascaded = [("authorization_attempt_declined", str(adyen.pk))] if decider == stripe else []
    assert _attempts(body) == [*cascaded, (expected, str(decider.pk))]


def test_a_service_with_cascading_still_answers_as_upstreams_payment_service(client, stripe_first):
    payment_service_update(service=stripe_first, cascade_retryable_declines=True)

    answer = client.get(f"/payment-services/{stripe_first.pk}").json()

    assert not [key for key in answer if "cascad" in key]


@pytest.mark.parametrize("allowed", [True, False])
@pytest.mark.parametrize(
    "error_code",
    sorted(
        {
            *RETRYABLE_DECLINES,
            "issuer_decline",
            "insufficient_funds",
            "restricted_card",
            "suspected_fraud",
            "invalid_card_number",
            "expired_card",
            "incorrect_cvv",
            "failed_three_d_secure",
            "requires_three_d_secure",
            "revocation_of_authorization",
            "invalid_request",
        }
    ),
)
def test_only_retryable_declines_of_a_service_that_allows_it_cascade(error_code, allowed):
    service = PaymentService(cascade_retryable_declines=allowed)
    declined = ConnectorResult(outcome=Outcome.DECLINED, error_code=error_code, raw_response_code="x")
    no_answer = ConnectorResult(outcome=Outcome.FAILED, error_code="service_error", raw_response_code="x")
    approved = ConnectorResult(outcome=Outcome.APPROVED, raw_response_code="x")

    assert try_next(declined, service) is (allowed and error_code in RETRYABLE_DECLINES)
    assert try_next(no_answer, service) is True
    assert try_next(approved, service) is False
