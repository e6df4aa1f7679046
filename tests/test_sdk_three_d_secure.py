"""3-D Secure end to end against a running server, as merchants and buyers reach it: the official `gr4vy` SDK,
unchanged, and raw HTTP for the merchant's server; a plain HTTP client for the buyer on the challenge page.
Everything the SDK reads parses with its own models: that is the wire-compatibility proof. docs/three-d-secure.md.

The processor is the account's sandbox behind a double that records every call (`ScriptedConnector`; the live server
runs in this process), so "never reaches the processor" is a fact the test reads, not an inference.
"""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from django.utils import timezone
from gr4vy import Gr4vy, errors, models

from paymentservices.definitions import SANDBOX_ID
from paymentservices.processors import processor_get
from tests.conformance.world import SDK_DEFAULTS
from threedsecure.models import ThreeDSScenario
from threedsecure.tests.factories import scenario_for
from transactions.models import ThreeDSecureChallenge, Transaction
from transactions.tests.connectors import ScriptedConnector

pytestmark = pytest.mark.django_db(transaction=True)

REDIRECT = "https://shop.example/return?order=42"
CARD = {"method": "card", "expiration_date": "12/39", "security_code": "123", "redirect_url": REDIRECT}
# Numbers no default test card lists (docs/test-cards.md): only the scenarios below decide for them.
SCENARIO_CARD = "4111111111111111"
FRICTIONLESS_Y = "4000000000003055"
NOT_AUTHENTICATED = "4000000000003022"
CHALLENGE_Y = "4000000000003220"
FORM_TOKEN = re.compile(r'name="form_token" value="([^"]+)"')


@pytest.fixture
def processor(monkeypatch) -> type[ScriptedConnector]:
    """Every sandbox service answers as the sandbox does and records each call it receives."""
    ScriptedConnector.script, ScriptedConnector.killed_after, ScriptedConnector.calls = {}, set(), []
    monkeypatch.setattr(processor_get(SANDBOX_ID), "connect", lambda credentials, deadline=None: ScriptedConnector())
    return ScriptedConnector


@pytest.fixture
def three_d_secure_on(sdk: Gr4vy, processor) -> models.PaymentService:
    """The merchant switches 3-D Secure on for its sandbox service, through the SDK."""
    [sandbox] = [
        item for item in sdk.payment_services.list().result.items if item.payment_service_definition_id == "mock-card"
    ]
    updated = sdk.payment_services.update(payment_service_id=sandbox.id, three_d_secure_enabled=True)
    assert isinstance(updated, models.PaymentService)
    assert updated.three_d_secure_enabled is True
    return updated


def authorizations() -> list:
    return [call for name, call in ScriptedConnector.calls if name == "authorize"]


def challenge_outcome(result: str) -> dict:
    return {"version": "2.2.0", "authentication": {"transaction_status": "C"}, "result": {"transaction_status": result}}


def form_token_of(page: httpx.Response) -> str:
    match = FORM_TOKEN.search(page.text)
    assert match, page.text
    return match.group(1)


def complete_challenge(buyer: httpx.Client, approval_url: str, action: str = "complete") -> dict[str, list[str]]:
    """GET the page, POST its form with the token it carries; answers the query of where the buyer was sent."""
    page = buyer.get(approval_url)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    done = buyer.post(approval_url, data={"form_token": form_token_of(page), "action": action})
    assert done.status_code == 303
    location = urlsplit(done.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == "https://shop.example/return"
    return parse_qs(location.query)


def assert_honest_page(response: httpx.Response, status: int) -> None:
    assert response.status_code == status
    assert response.headers["content-type"].startswith("text/html")
    assert "Authentication unavailable" in response.text
    assert "form_token" not in response.text


# --- the official SDK ------------------------------------------------------------------------------------------


def test_sdk_frictionless_payment_is_authorized_with_its_summary(sdk, three_d_secure_on):
    scenario = sdk.three_ds_scenarios.create(
        conditions={"card_number": SCENARIO_CARD},
        outcome={"version": "2.2.0", "authentication": {"transaction_status": "Y"}},
    )
    assert isinstance(scenario, models.ThreeDSecureScenario)

    created = sdk.transactions.create(amount=1299, currency="USD", payment_method={**CARD, "number": SCENARIO_CARD})

    assert isinstance(created, models.Transaction)
    assert created.status == "authorization_succeeded"
    summary = created.three_d_secure
    assert isinstance(summary, models.TransactionThreeDSecureSummary)
    assert (summary.status, summary.method, summary.version) == ("complete", "frictionless", "2.2.0")
    assert isinstance(summary.response_data, models.ThreeDSecureV2)
    assert (summary.response_data.eci, summary.response_data.directory_response) == ("05", "Y")
    [call] = authorizations()
    assert call["request"].three_d_secure.cavv == summary.response_data.cavv
    fetched = sdk.transactions.get(transaction_id=created.id)
    assert fetched.three_d_secure.response_data.cavv == summary.response_data.cavv
    assert fetched.payment_method.approval_url is None


def test_sdk_refused_authentication_never_reaches_the_processor(sdk, three_d_secure_on):
    sdk.three_ds_scenarios.create(
        conditions={"card_number": SCENARIO_CARD}, outcome={"authentication": {"transaction_status": "N"}}
    )

    created = sdk.transactions.create(amount=1299, currency="USD", payment_method={**CARD, "number": SCENARIO_CARD})

    assert (created.status, created.error_code) == ("authorization_declined", "failed_buyer_approval")
    assert (created.three_d_secure.status, created.three_d_secure.response_data) == ("declined", None)
    assert ScriptedConnector.calls == []
    assert Transaction.objects.get(pk=created.id).payment_service_transaction_id is None
    events = sdk.transactions.events.list(transaction_id=created.id).result.items
    assert [event.context["event"] for event in events] == [
        "authorization_declined",
        "three_d_secure_authentication",
        "transaction_created",
    ]


@pytest.mark.parametrize(
    ("result", "status", "error_code", "processor_asked"),
    [("Y", "authorization_succeeded", None, 1), ("N", "authorization_declined", "failed_buyer_approval", 0)],
    ids=["passes", "fails"],
)
def test_sdk_challenged_payment_is_completed_by_the_buyer_and_read_back(
    sdk, three_d_secure_on, buyer, result, status, error_code, processor_asked
):
    sdk.three_ds_scenarios.create(conditions={"amount": 4321}, outcome=challenge_outcome(result))

    created = sdk.transactions.create(amount=4321, currency="USD", payment_method={**CARD, "number": SCENARIO_CARD})

    assert created.status == "buyer_approval_pending"
    assert created.approval_expires_at is not None
    assert created.three_d_secure.method == "challenge"
    approval_url = created.payment_method.approval_url
    assert approval_url.startswith(sdk.sdk_configuration.server_url + "/three-d-secure/challenges/")
    assert authorizations() == []
    pending = sdk.transactions.get(transaction_id=created.id)
    assert pending.payment_method.approval_url == approval_url  # reads answer it while the buyer is awaited
    listed = sdk.transactions.list().result.items
    assert [item.payment_method.approval_url for item in listed] == [approval_url]

    back = complete_challenge(buyer, approval_url)

    assert back["order"] == ["42"]  # the merchant's own query is kept
    assert back["transaction_id"] == [created.id]
    assert back["transaction_status"] == [status]
    ended = sdk.transactions.get(transaction_id=created.id)
    assert isinstance(ended, models.Transaction)
    assert (ended.status, ended.error_code) == (status, error_code)
    assert ended.payment_method.approval_url is None
    assert ended.three_d_secure.method == "challenge"
    assert ended.three_d_secure.status == ("complete" if result == "Y" else "declined")
    assert len(authorizations()) == processor_asked


def test_sdk_bad_inputs_are_typed_errors(sdk, three_d_secure_on, other_merchant_account):
    with pytest.raises(errors.Error400) as raised:
        sdk.three_ds_scenarios.create(conditions={}, outcome={"authentication": {"transaction_status": "C"}})
    assert [detail.pointer for detail in raised.value.data.details] == ["/outcome/result"]

    theirs = scenario_for(other_merchant_account, authentication="N")
    with pytest.raises(errors.Error404):
        sdk.three_ds_scenarios.update(
            three_ds_scenario_id=str(theirs.pk), outcome={"authentication": {"transaction_status": "Y"}}
        )
    with pytest.raises(errors.Error404):
        sdk.three_ds_scenarios.delete(three_ds_scenario_id=str(theirs.pk))
    assert ThreeDSScenario.objects.get(pk=theirs.pk).authentication_status == "N"

    with pytest.raises(errors.Error400) as raised:
        sdk.transactions.create(
            amount=1299, currency="USD", payment_method={**CARD, "number": CHALLENGE_Y, "redirect_url": None}
        )
    assert [detail.pointer for detail in raised.value.data.details] == ["/payment_method/redirect_url"]
    assert not Transaction.objects.exists()


# --- raw HTTP --------------------------------------------------------------------------------------------------


def pay(merchant: httpx.Client, number: str, amount: int = 1299) -> dict:
    body = {"amount": amount, "currency": "USD", "payment_method": {**CARD, "number": number}, **SDK_DEFAULTS}
    response = merchant.post("/transactions", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def test_http_scenario_frictionless_refused_and_challenged(merchant, three_d_secure_on, buyer):
    made = merchant.post(
        "/three-ds-scenarios",
        json={"conditions": {"amount": 777}, "outcome": challenge_outcome("Y")},
    )
    assert made.status_code == 201, made.text
    assert made.json()["type"] == "three-d-secure-scenario"

    frictionless = pay(merchant, FRICTIONLESS_Y)
    assert frictionless["status"] == "authorization_succeeded"
    assert frictionless["three_d_secure"]["status"] == "complete"
    refused = pay(merchant, NOT_AUTHENTICATED)
    assert (refused["status"], refused["error_code"]) == ("authorization_declined", "failed_buyer_approval")
    assert len(authorizations()) == 1  # the frictionless one only

    challenged = pay(merchant, SCENARIO_CARD, amount=777)
    assert challenged["status"] == "buyer_approval_pending"
    approval_url = challenged["payment_method"]["approval_url"]
    read = merchant.get(f"/transactions/{challenged['id']}").json()
    assert read["payment_method"]["approval_url"] == approval_url

    back = complete_challenge(buyer, approval_url)

    assert back["transaction_status"] == ["authorization_succeeded"]
    ended = merchant.get(f"/transactions/{challenged['id']}").json()
    assert (ended["status"], ended["payment_method"]["approval_url"]) == ("authorization_succeeded", None)
    assert len(authorizations()) == 2


def test_http_bad_scenarios_are_clear_4xx(merchant, other_merchant_account):
    no_result = merchant.post(
        "/three-ds-scenarios", json={"conditions": {}, "outcome": {"authentication": {"transaction_status": "C"}}}
    )
    assert no_result.status_code == 400
    assert no_result.json()["code"] == "bad_request"
    assert [detail["pointer"] for detail in no_result.json()["details"]] == ["/outcome/result"]
    assert not ThreeDSScenario.objects.exists()

    theirs = scenario_for(other_merchant_account, authentication="N")
    for response in (
        merchant.put(
            f"/three-ds-scenarios/{theirs.pk}", json={"outcome": {"authentication": {"transaction_status": "Y"}}}
        ),
        merchant.delete(f"/three-ds-scenarios/{theirs.pk}"),
    ):
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"
    assert ThreeDSScenario.objects.get(pk=theirs.pk).authentication_status == "N"


def test_http_the_page_opened_twice_is_gone(merchant, three_d_secure_on, buyer):
    approval_url = pay(merchant, CHALLENGE_Y)["payment_method"]["approval_url"]
    assert buyer.get(approval_url).status_code == 200

    assert_honest_page(buyer.get(approval_url), 410)


def test_http_the_page_after_expiry_is_gone(merchant, three_d_secure_on, buyer):
    created = pay(merchant, CHALLENGE_Y)
    ThreeDSecureChallenge.objects.filter(transaction_id=created["id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    assert_honest_page(buyer.get(created["payment_method"]["approval_url"]), 410)
    read = merchant.get(f"/transactions/{created['id']}").json()
    assert (read["status"], read["payment_method"]["approval_url"]) == ("buyer_approval_pending", None)


def test_http_forged_completions_change_nothing(merchant, three_d_secure_on, buyer):
    created = pay(merchant, CHALLENGE_Y)
    approval_url = created["payment_method"]["approval_url"]
    forged_url = approval_url[: approval_url.rindex("/") + 1] + "x" * 43

    assert_honest_page(buyer.get(forged_url), 404)
    assert_honest_page(buyer.post(forged_url, data={"form_token": "x" * 43, "action": "complete"}), 404)
    page = buyer.get(approval_url)
    assert_honest_page(buyer.post(approval_url, data={"form_token": "y" * 43, "action": "complete"}), 400)
    assert_honest_page(buyer.post(approval_url, data={"action": "complete"}), 400)

    assert merchant.get(f"/transactions/{created['id']}").json()["status"] == "buyer_approval_pending"
    assert authorizations() == []
    # The page's own form still completes it: the forgeries used nothing up.
    done = buyer.post(approval_url, data={"form_token": form_token_of(page), "action": "complete"})
    assert done.status_code == 303
