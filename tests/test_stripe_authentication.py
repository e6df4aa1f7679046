"""Stripe's own 3-D Secure (`requires_action`), over HTTP only: the transaction waits for the buyer on this server's
page, Stripe's page step is played as Stripe.js plays it (localstripe's `_authenticate`), and only the PaymentIntent
Stripe then holds decides. localstripe runs as a real process; Stripe's library reads what it holds.
docs/three-d-secure.md ("Stripe's own authentication"); the browser plays it in
tests/browser/test_stripe_authentication.py.
"""

from __future__ import annotations

import json
import re
import urllib.request
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
import stripe
from django.test import Client
from django.utils import timezone

from paymentservices.processors.stripe.tests.mock import FakeStripe, localstripe
from paymentservices.processors.tests.overrides import override_processor
from transactions.models import ThreeDSecureChallenge, Transaction
from transactions.services.challenges import challenges_expire
from transactions.services.recovery import transactions_recover_pending

pytestmark = pytest.mark.django_db

SECRET = "sk_test_stripe_authentication_0123"
PUBLISHABLE = "pk_test_stripe_authentication_0123"
# localstripe asks for authentication for this card (Stripe's documented "always authenticate" test card).
AUTHENTICATE = "4000002760003184"
REDIRECT = "https://shop.example/return?order=42"
SDK_DEFAULTS = {"store": False, "is_subsequent_payment": False, "merchant_initiated": False, "async_capture": False}


@pytest.fixture
def fake(settings) -> FakeStripe:
    with localstripe() as running:
        override_processor(
            settings, "stripe", API_BASE=running.url, TIMEOUT_SECONDS=5, JS_URL=f"{running.url}/js.stripe.com/v3/"
        )
        yield running


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write", "payment-services.write"])


def stripe_service(client, *, publishable_key: str | None = PUBLISHABLE) -> dict:
    fields = [{"key": "secret_key", "value": SECRET}]
    if publishable_key:
        fields.append({"key": "publishable_key", "value": publishable_key})
    body = {
        "display_name": "Stripe",
        "payment_service_definition_id": "stripe-card",
        "fields": fields,
        "accepted_currencies": ["USD"],
        "accepted_countries": ["US"],
        "position": 1,
    }
    created = client.post("/payment-services", body, format="json")
    assert created.status_code == 201, created.json()
    return created.json()


def pay(client, *, number: str = AUTHENTICATE, redirect_url: str | None = REDIRECT, **fields):
    card = {"method": "card", "number": number, "expiration_date": "12/34", "security_code": "123"}
    if redirect_url is not None:
        card["redirect_url"] = redirect_url
    payload = {"amount": 1299, "currency": "USD", "payment_method": card, **SDK_DEFAULTS, **fields}
    return client.post("/transactions", payload, format="json")


def at_stripe(fake: FakeStripe) -> stripe.StripeClient:
    return stripe.StripeClient(SECRET, base_addresses={"api": fake.url})


def waiting(client, **fields) -> tuple[dict, str]:
    """A payment Stripe asks to authenticate: its answer and its page's path."""
    answer = pay(client, **fields)
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["status"] == "buyer_approval_pending", body
    return body, urlsplit(body["payment_method"]["approval_url"]).path


def page_data(page) -> dict:
    match = re.search(r'<script id="stripe-payment" type="application/json">(.*?)</script>', page.content.decode())
    assert match, page.content
    return json.loads(match.group(1))


def form_token(page) -> str:
    match = re.search(r'name="form_token" value="([^"]+)"', page.content.decode())
    assert match, page.content
    return match.group(1)


def authenticate_at_stripe(fake: FakeStripe, data: dict, *, success: bool) -> None:
    """What Stripe.js's confirmCardPayment does in the buyer's browser: the fake's `_authenticate`, with the
    publishable key and the client secret the page was given."""
    intent_id = data["client_secret"].split("_secret_")[0]
    request = urllib.request.Request(  # noqa: S310 - the fake on loopback
        f"{fake.url}/v1/payment_intents/{intent_id}/_authenticate?success={'true' if success else 'false'}",
        data=json.dumps({"key": data["publishable_key"], "client_secret": data["client_secret"]}).encode(),
        method="POST",
    )
    with urllib.request.urlopen(request) as answer:  # noqa: S310
        assert answer.status == 200


def complete(path: str, token: str):
    return Client().post(path, {"form_token": token, "action": "complete"})


def test_stripe_asking_for_authentication_makes_the_transaction_wait_for_the_buyer(client, fake):
    stripe_service(client)

    body, path = waiting(client)

    intent = at_stripe(fake).v1.payment_intents.retrieve(body["payment_service_transaction_id"])
    assert intent.status == "requires_action"
    assert body["payment_method"]["approval_url"].endswith(path)
    assert body["approval_expires_at"]
    assert body["three_d_secure"]["method"] == "challenge"
    # The client secret is fetched when the page is shown: it is in no answer and nowhere in the database.
    assert "_secret_" not in json.dumps(body)
    txn = Transaction.objects.get(pk=body["id"])
    challenge = ThreeDSecureChallenge.objects.get(transaction=txn)
    assert challenge.processor
    stored = json.dumps(
        [list(Transaction.objects.values().filter(pk=txn.pk)), list(challenge.__dict__.values())], default=str
    )
    assert intent.client_secret not in stored


def test_without_redirect_url_or_publishable_key_the_payment_is_declined_and_canceled_at_stripe(
    client, fake, django_capture_on_commit_callbacks
):
    service = stripe_service(client, publishable_key=None)
    for fields in ({}, {"redirect_url": None}):
        with django_capture_on_commit_callbacks(execute=True):
            answer = pay(client, **fields).json()
        assert (answer["status"], answer["error_code"]) == ("authorization_declined", "requires_three_d_secure")
        intent = at_stripe(fake).v1.payment_intents.retrieve(answer["payment_service_transaction_id"])
        assert intent.status == "canceled"
        assert answer["payment_service"]["id"] == service["id"]


def test_the_page_loads_stripe_js_with_the_publishable_key_and_allows_only_its_origin(client, fake):
    stripe_service(client)
    body, path = waiting(client)

    page = Client().get(path)

    assert page.status_code == 200
    data = page_data(page)
    intent = at_stripe(fake).v1.payment_intents.retrieve(body["payment_service_transaction_id"])
    assert data == {
        "script_url": f"{fake.url}/js.stripe.com/v3/",
        "publishable_key": PUBLISHABLE,
        "client_secret": intent.client_secret,
    }
    policy = dict(part.split(" ", 1) for part in page["Content-Security-Policy"].split("; "))
    assert policy["script-src"].split(" ")[1:] == [fake.url]
    assert policy["connect-src"] == fake.url
    assert policy["frame-src"] == fake.url
    assert policy["form-action"] == "'self' https://shop.example"
    assert page["Cache-Control"] == "no-store"
    assert SECRET not in page.content.decode()
    assert AUTHENTICATE not in page.content.decode()
    assert Client().get(path).status_code == 410  # single-use


@pytest.mark.parametrize(
    ("intent", "success", "status", "at_stripe_status"),
    [
        ("authorize", True, "authorization_succeeded", "requires_capture"),
        ("capture", True, "capture_succeeded", "succeeded"),
        ("authorize", False, "authorization_declined", "requires_payment_method"),
    ],
    ids=["authenticated", "authenticated-capture", "failed"],
)
def test_after_the_buyer_authenticates_stripes_answer_decides_and_the_buyer_returns(
    client, fake, intent, success, status, at_stripe_status
):
    stripe_service(client)
    body, path = waiting(client, intent=intent)
    page = Client().get(path)

    authenticate_at_stripe(fake, page_data(page), success=success)
    done = complete(path, form_token(page))

    assert done.status_code == 303
    location = urlsplit(done["Location"])
    assert (location.scheme, location.netloc, location.path) == ("https", "shop.example", "/return")
    assert parse_qs(location.query) == {"order": ["42"], "transaction_id": [body["id"]], "transaction_status": [status]}
    txn = Transaction.objects.get(pk=body["id"])
    assert txn.status == status
    assert at_stripe(fake).v1.payment_intents.retrieve(body["payment_service_transaction_id"]).status == (
        at_stripe_status
    )
    assert txn.three_d_secure["status"] == ("complete" if success else "declined")
    if not success:
        assert txn.error_code == "failed_three_d_secure"
    assert complete(path, form_token(page)).status_code == 410  # the completion is single-use too


def test_a_completion_the_page_never_authenticated_leaves_the_transaction_waiting(client, fake):
    stripe_service(client)
    body, path = waiting(client)
    page = Client().get(path)

    early = complete(path, form_token(page))  # the page's word alone: Stripe still waits for the buyer
    forged = complete(path, "not-the-page-token")

    assert early.status_code == 409
    assert b"not finished" in early.content
    assert forged.status_code == 400
    assert Transaction.objects.get(pk=body["id"]).status == "buyer_approval_pending"
    intent_id = body["payment_service_transaction_id"]
    assert at_stripe(fake).v1.payment_intents.retrieve(intent_id).status == "requires_action"
    # The buyer may still finish on the same page.
    authenticate_at_stripe(fake, page_data(page), success=True)
    assert complete(path, form_token(page)).status_code == 303
    assert Transaction.objects.get(pk=body["id"]).status == "authorization_succeeded"


def _expire_now(transaction_id: str) -> None:
    ThreeDSecureChallenge.objects.filter(transaction_id=transaction_id).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_the_expiry_job_cancels_the_payment_intent_at_stripe(client, fake):
    stripe_service(client)
    body, path = waiting(client)
    _expire_now(body["id"])

    assert challenges_expire() == 1

    txn = Transaction.objects.get(pk=body["id"])
    assert (txn.status, txn.error_code) == ("authorization_failed", "incomplete_buyer_approval")
    assert txn.buyer_approval_timedout_at is not None
    assert at_stripe(fake).v1.payment_intents.retrieve(body["payment_service_transaction_id"]).status == "canceled"
    assert Client().get(path).status_code == 410


def test_an_expiry_after_stripe_captured_records_what_stripe_holds(client, fake):
    stripe_service(client)
    body, path = waiting(client, intent="capture")
    authenticate_at_stripe(fake, page_data(Client().get(path)), success=True)  # the buyer never comes back
    _expire_now(body["id"])

    assert challenges_expire() == 1

    assert Transaction.objects.get(pk=body["id"]).status == "capture_succeeded"  # Stripe refused the cancel


def test_an_expiry_with_stripe_unreachable_keeps_waiting_for_the_next_run(client, fake):
    stripe_service(client)
    body, _ = waiting(client)
    _expire_now(body["id"])
    fake.stop()

    assert challenges_expire() == 0

    assert Transaction.objects.get(pk=body["id"]).status == "buyer_approval_pending"


def test_a_merchant_cancel_cancels_the_payment_intent_at_stripe(client, fake, django_capture_on_commit_callbacks):
    stripe_service(client)
    body, _ = waiting(client)

    with django_capture_on_commit_callbacks(execute=True):
        canceled = client.post(f"/transactions/{body['id']}/cancel")

    assert canceled.status_code == 200, canceled.json()
    assert at_stripe(fake).v1.payment_intents.retrieve(body["payment_service_transaction_id"]).status == "canceled"


def test_recovery_leaves_a_waiting_transaction_alone(client, fake):
    stripe_service(client)
    body, _ = waiting(client)
    Transaction.objects.filter(pk=body["id"]).update(updated_at=timezone.now() - timedelta(days=1))

    recovery = transactions_recover_pending()

    assert (recovery.resolved, recovery.failed) == ([], [])
    assert Transaction.objects.get(pk=body["id"]).status == "buyer_approval_pending"


def test_recovery_of_a_crash_after_stripe_asked_for_authentication_declines_and_cancels(
    client, fake, django_capture_on_commit_callbacks
):
    """The request died after Stripe answered `requires_action` and before it was recorded: the buyer never got a
    page, so the payment is declined and Stripe's PaymentIntent canceled."""
    stripe_service(client)
    body, _ = waiting(client)
    Transaction.objects.filter(pk=body["id"]).update(
        status="processing", payment_service_transaction_id=None, updated_at=timezone.now() - timedelta(days=1)
    )
    ThreeDSecureChallenge.objects.filter(transaction_id=body["id"]).delete()

    with django_capture_on_commit_callbacks(execute=True):
        recovery = transactions_recover_pending()

    assert [txn.pk for txn in recovery.resolved] == [Transaction.objects.get(pk=body["id"]).pk]
    txn = Transaction.objects.get(pk=body["id"])
    assert (txn.status, txn.error_code) == ("authorization_declined", "requires_three_d_secure")
    assert at_stripe(fake).v1.payment_intents.retrieve(body["payment_service_transaction_id"]).status == "canceled"
