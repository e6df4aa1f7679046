"""3-D Secure run by this server, through the API: each outcome of the sandbox issuer (default test cards and
scenarios), what the processor is given, a refusal that never reaches it, and a challenge begun (the page and its
end: test_challenge_page.py). docs/three-d-secure.md."""

from __future__ import annotations

import pytest

from payments.tests.assertions import assert_error
from paymentservices.models import PaymentService
from paymentservices.services import payment_service_update
from threedsecure.tests.factories import scenario_for
from transactions.models import ThreeDSecureChallenge, Transaction, TransactionEvent
from transactions.tests.conftest import CARD

pytestmark = pytest.mark.django_db

SDK_DEFAULTS = {"store": False, "merchant_initiated": False, "is_subsequent_payment": False}
FRICTIONLESS_Y = "4000000000003055"
ATTEMPTED = "4000000000003014"
NOT_AUTHENTICATED = "4000000000003022"
REJECTED = "4000000000003030"
UNAVAILABLE = "4000000000003048"
TIMEOUT = "4000000000003006"
CHALLENGE_Y = "4000000000003220"
CHALLENGE_N = "4000000000003238"
REDIRECT = "https://shop.example/return?order=42"


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.fixture
def sandbox(merchant_account) -> PaymentService:
    service = PaymentService.objects.get(merchant_account=merchant_account, definition_id="mock-card")
    return payment_service_update(service=service, three_d_secure_enabled=True)


def pay(
    client, number=CARD["number"], redirect_url: str | None = REDIRECT, idempotency_key: str | None = None, **fields
):
    card = {**CARD, "number": number}
    if redirect_url is not None:
        card["redirect_url"] = redirect_url
    payload = {"amount": 1299, "currency": "USD", "payment_method": card, **SDK_DEFAULTS, **fields}
    headers = {"HTTP_IDEMPOTENCY_KEY": idempotency_key} if idempotency_key else {}
    return client.post("/transactions", payload, format="json", **headers)


def authorizations(connector) -> list:
    return [call["request"] for name, call in connector.calls if name == "authorize"]


@pytest.mark.parametrize(
    ("number", "eci", "directory_response"),
    [(FRICTIONLESS_Y, "05", "Y"), (ATTEMPTED, "06", "A"), ("5555555555554444", "02", "Y")],
    ids=["Y", "A", "mastercard-default-Y"],
)
def test_a_frictionless_success_is_authorized_with_the_result_given_to_the_processor(
    client, sandbox, connector, number, eci, directory_response
):
    response = pay(client, number=number)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "authorization_succeeded"
    summary = body["three_d_secure"]
    assert summary["status"] == "complete"
    assert summary["method"] == "frictionless"
    assert summary["version"] == "2.2.0"
    assert summary["response_data"]["eci"] == eci
    assert summary["response_data"]["directory_response"] == directory_response
    assert summary["amount"] == 1299
    [request] = authorizations(connector)
    assert request.three_d_secure.eci == eci
    assert request.three_d_secure.cavv == summary["response_data"]["cavv"]
    assert body["payment_method"]["approval_url"] is None


@pytest.mark.parametrize("number", [NOT_AUTHENTICATED, REJECTED], ids=["N", "R"])
def test_a_refused_authentication_is_declined_before_any_processor_is_asked(client, sandbox, connector, number):
    response = pay(client, number=number)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "authorization_declined"
    assert body["error_code"] == "failed_buyer_approval"
    assert body["three_d_secure"]["status"] == "declined"
    assert body["three_d_secure"]["response_data"] is None
    assert authorizations(connector) == []
    names = list(TransactionEvent.objects.filter(transaction_id=body["id"]).values_list("name", flat=True))
    assert names == ["transaction_created", "three_d_secure_authentication", "authorization_declined"]


@pytest.mark.parametrize(("number", "error_code"), [(UNAVAILABLE, None), (TIMEOUT, "402")], ids=["U", "timeout"])
def test_no_authentication_result_goes_on_without_a_liability_shift(client, sandbox, connector, number, error_code):
    response = pay(client, number=number)

    body = response.json()
    assert body["status"] == "authorization_succeeded"
    assert body["three_d_secure"]["status"] == "error"
    assert body["three_d_secure"]["response_data"] is None
    assert (body["three_d_secure"]["error_data"] or {}).get("code") == error_code
    [request] = authorizations(connector)
    assert request.three_d_secure is None


def test_a_scenario_decides_over_the_test_cards(client, sandbox, connector, merchant_account):
    scenario_for(merchant_account, authentication="R", amount=1299)

    response = pay(client, number=FRICTIONLESS_Y)

    assert response.json()["status"] == "authorization_declined"
    assert authorizations(connector) == []


def test_a_scenario_on_the_buyer_email_matches(client, sandbox, connector, merchant_account):
    scenario_for(merchant_account, authentication="N", email_address="Ann@Example.com")
    buyer = {"billing_details": {"email_address": "ann@example.com", "first_name": "Ann"}}

    assert pay(client, buyer=buyer).json()["status"] == "authorization_declined"
    assert pay(client).json()["status"] == "authorization_succeeded"


def test_without_three_d_secure_enabled_nothing_is_authenticated(client, connector, merchant_account):
    response = pay(client, number=NOT_AUTHENTICATED)

    assert response.json()["status"] == "authorization_succeeded"
    assert response.json()["three_d_secure"] is None


def test_a_result_the_merchant_sent_skips_the_authentication(client, sandbox, connector):
    data = {
        "version": "2.2.0",
        "cavv": "AAABBBCCC",
        "eci": "05",
        "directory_response": "Y",
        "directory_transaction_id": "c4e59ceb-a382-4d6a-bc87-385d591fa09d",
    }

    response = pay(client, number=NOT_AUTHENTICATED, three_d_secure_data=data)

    body = response.json()
    assert body["status"] == "authorization_succeeded"
    assert body["three_d_secure"]["response_data"]["cavv"] == "AAABBBCCC"
    assert not TransactionEvent.objects.filter(name="three_d_secure_authentication").exists()


def test_a_challenge_waits_for_the_buyer_with_an_approval_url(client, sandbox, connector):
    response = pay(client, number=CHALLENGE_Y)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "buyer_approval_pending"
    assert body["intent_outcome"] == "pending"
    url = body["payment_method"]["approval_url"]
    assert url.startswith("http://testserver/three-d-secure/challenges/")
    assert body["approval_expires_at"] is not None
    assert body["three_d_secure"]["method"] == "challenge"
    assert authorizations(connector) == []
    challenge = ThreeDSecureChallenge.objects.get(transaction_id=body["id"])
    token = url.rsplit("/", 1)[1]
    assert token not in challenge.token_digest
    assert len(token) >= 40
    assert challenge.redirect_url == REDIRECT
    assert token not in challenge.sealed_token  # sealed for reads (test_approval_url.py)


def test_a_challenge_uses_the_public_base_url(client, sandbox, connector, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.com/"

    url = pay(client, number=CHALLENGE_N).json()["payment_method"]["approval_url"]

    assert url.startswith("https://pay.example.com/three-d-secure/challenges/")


def test_a_challenge_without_a_redirect_url_is_refused_and_nothing_is_written(client, sandbox, connector):
    response = pay(client, number=CHALLENGE_Y, redirect_url=None)

    assert_error(response, 400, "/payment_method/redirect_url")
    assert "redirect_url" in response.json()["message"]
    assert Transaction.objects.count() == 0


@pytest.mark.parametrize(
    "redirect_url",
    [
        "not a url",
        "ftp://shop.example/x",
        "javascript:alert(1)",
        "data:application/json;base64,e30=",
        "https://shop.example/" + "a" * 2040,
    ],
    ids=["text", "ftp", "javascript", "data", "too-long"],
)
def test_a_bad_redirect_url_is_refused_by_name(client, sandbox, connector, redirect_url):
    response = pay(client, number=FRICTIONLESS_Y, redirect_url=redirect_url)

    assert_error(response, 400, "/payment_method/redirect_url")
    assert Transaction.objects.count() == 0


def test_a_redirect_url_is_accepted_when_no_challenge_follows(client, sandbox, connector):
    assert pay(client, number=FRICTIONLESS_Y).json()["status"] == "authorization_succeeded"
