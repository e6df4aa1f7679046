"""Payments routed to the account's payment services: the service picked (by id, or by position, currency and
country), failover when a processor gives no answer, a decline kept final, the answer naming the service, and what
the processor told carried to the answer and the stored method. Stripe itself: tests/test_stripe_payments.py."""

from __future__ import annotations

import uuid

import pytest

from buyers.tests.factories import BuyerFactory
from paymentmethods.models import PaymentMethod
from payments.tests.assertions import assert_error
from payments.tests.factories import MerchantAccountFactory
from paymentservices.models import PaymentService
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.services import payment_service_update
from paymentservices.tests.factories import PaymentServiceFactory
from tests.servers import free_port
from transactions.models import Transaction, TransactionEvent
from transactions.tests.conftest import CARD
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

SDK_DEFAULTS = {"store": False, "merchant_initiated": False, "is_subsequent_payment": False}
DECLINED = "4000000000000002"


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.fixture
def sandbox(merchant_account) -> PaymentService:
    """The account's default service."""
    return PaymentService.objects.get(merchant_account=merchant_account, definition_id="mock-card")


@pytest.fixture
def stripe_down(settings, merchant_account) -> PaymentService:
    """A Stripe service first in the routing order, whose Stripe refuses every connection (nothing listens)."""
    override_processor(settings, "stripe", API_BASE=f"http://127.0.0.1:{free_port()}")
    service = PaymentServiceFactory(merchant_account=merchant_account, display_name="Stripe (down)")
    return payment_service_update(service=service, position=1)


def pay(client, **fields):
    card = {**CARD, "number": fields.pop("number", CARD["number"])}
    payload = {"amount": 1299, "currency": "USD", "payment_method": card, **SDK_DEFAULTS, **fields}
    return client.post("/transactions", payload, format="json")


def events(transaction_id) -> list[tuple[str, dict]]:
    return [(event.name, event.details) for event in TransactionEvent.objects.filter(transaction_id=transaction_id)]


def test_a_payment_goes_to_the_default_service_and_the_answer_names_it(client, sandbox):
    response = pay(client)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["payment_service"] == {
        "type": "payment-service",
        "id": str(sandbox.pk),
        "payment_service_definition_id": "mock-card",
        "method": "card",
        "display_name": "Sandbox",
    }
    assert body["payment_service_transaction_id"] == f"sandbox-authorization-{body['id']}"
    # What the processor told, as it told it.
    assert (body["raw_response_code"], body["auth_response_code"], body["cvv_response_code"]) == ("00", "00", "match")
    assert body["scheme_transaction_id"].startswith("sandbox-scheme-")
    for never_told in ("merchant_advice_code", "iso_response_code", "approval_expires_at"):
        assert body[never_told] is None
    assert Transaction.objects.get().payment_service == sandbox


def test_the_service_named_by_id_takes_the_payment(client, sandbox, merchant_account):
    second = PaymentServiceFactory(merchant_account=merchant_account, mock_card=True, display_name="Second sandbox")

    body = pay(client, payment_service_id=str(second.pk)).json()

    assert body["payment_service"]["id"] == str(second.pk)
    assert Transaction.objects.get().payment_service == second


def test_routing_follows_position_and_currency(client, sandbox, merchant_account):
    euro = PaymentServiceFactory(
        merchant_account=merchant_account, mock_card=True, display_name="Euro", accepted_currencies=["EUR"]
    )
    payment_service_update(service=euro, position=1)

    in_euro = pay(client, currency="EUR").json()
    in_dollars = pay(client, currency="USD").json()
    payment_service_update(service=sandbox, position=1)
    in_euro_again = pay(client, currency="EUR").json()

    assert in_euro["payment_service"]["display_name"] == "Euro"
    assert in_dollars["payment_service"]["display_name"] == "Sandbox"  # the Euro service does not take USD
    assert in_euro_again["payment_service"]["display_name"] == "Sandbox"  # now first


def test_a_processor_that_gives_no_answer_hands_the_payment_to_the_next_service(client, sandbox, stripe_down):
    response = pay(client)

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["payment_service"]["id"]) == ("authorization_succeeded", str(sandbox.pk))
    history = events(body["id"])
    failed = [details for name, details in history if name == "authorization_attempt_failed"]
    assert failed == [
        {
            "payment_service_id": str(stripe_down.pk),
            "payment_service_definition_id": "stripe-card",
            "error_code": "service_error",
            "raw_response_code": "APIConnectionError",
            "raw_response_description": "Stripe gave no answer.",
            "payment_service_transaction_id": None,
            "next_payment_service_id": str(sandbox.pk),
        }
    ]
    assert history[-1] == (
        "authorization_succeeded",
        {"payment_service_id": str(sandbox.pk), "payment_service_definition_id": "mock-card"},
    )


def test_the_history_shows_the_failed_attempt_by_upstream_name(client, api_client, sandbox, stripe_down):
    transaction_id = pay(client).json()["id"]

    page = client.get(f"/transactions/{transaction_id}/events").json()

    failed = [item for item in page["items"] if item["context"]["event"] == "authorization_attempt_failed"]
    assert [item["name"] for item in failed] == ["payment-connector-response-transaction-authorization-failed"]


def test_a_decline_is_final_and_never_tried_elsewhere(client, sandbox, stripe_down):
    payment_service_update(service=sandbox, position=1)  # the sandbox declines; Stripe would be next

    body = pay(client, number=DECLINED).json()

    assert (body["status"], body["payment_service"]["id"]) == ("authorization_declined", str(sandbox.pk))
    assert "authorization_attempt_failed" not in [name for name, _ in events(body["id"])]


def test_no_answer_from_the_last_service_fails_the_payment(client, sandbox, stripe_down):
    payment_service_update(service=sandbox, active=False)

    body = pay(client).json()

    assert (body["status"], body["error_code"]) == ("authorization_failed", "service_error")
    assert body["payment_service"]["id"] == str(stripe_down.pk)


def test_no_attempt_starts_once_the_payment_time_is_spent(client, sandbox, stripe_down, settings):
    settings.PAYMENT_ROUTING_SECONDS = 0  # spent before the second attempt could start

    body = pay(client).json()

    assert (body["status"], body["payment_service"]["id"]) == ("authorization_failed", str(stripe_down.pk))
    assert "authorization_attempt_failed" not in [name for name, _ in events(body["id"])]


def _other_accounts_service():
    return PaymentServiceFactory(merchant_account=MerchantAccountFactory(id="other"), mock_card=True).pk


def _inactive_service(account):
    service = PaymentServiceFactory(merchant_account=account, mock_card=True, display_name="Off")
    return payment_service_update(service=service, active=False).pk


def _euro_only_service(account):
    return PaymentServiceFactory(merchant_account=account, mock_card=True, accepted_currencies=["EUR"]).pk


@pytest.mark.parametrize(
    ("case", "pointer", "message"),
    [
        ("another-accounts", "/payment_service_id", "does not exist for this merchant account"),
        ("unknown", "/payment_service_id", "does not exist for this merchant account"),
        ("not-an-id", "/payment_service_id", None),
        ("inactive", "/payment_service_id", "not active"),
        ("not-this-currency", "/payment_service_id", "does not accept USD"),
        ("currency-nothing-takes", "/currency", "No active payment service"),
    ],
    ids=lambda value: value if isinstance(value, str) and not value.startswith("/") else None,
)
def test_a_payment_no_service_can_take_is_refused_by_name(client, merchant_account, sandbox, case, pointer, message):
    fields = {}
    if case == "another-accounts":
        fields["payment_service_id"] = str(_other_accounts_service())
    elif case == "unknown":
        fields["payment_service_id"] = str(uuid.uuid4())
    elif case == "not-an-id":
        fields["payment_service_id"] = "stripe"
    elif case == "inactive":
        fields["payment_service_id"] = str(_inactive_service(merchant_account))
    elif case == "not-this-currency":
        fields["payment_service_id"] = str(_euro_only_service(merchant_account))
    else:
        payment_service_update(service=sandbox, accepted_currencies=["EUR"])

    body = assert_error(pay(client, **fields), 400, pointer)

    if message is not None:
        assert message in body["message"]
    assert not Transaction.objects.exists()


def test_a_production_server_refuses_the_sandbox_at_routing(client, sandbox, settings):
    settings.DEBUG, settings.SANDBOX_PAYMENTS = False, False

    body = assert_error(pay(client), 400, "/currency")

    assert not Transaction.objects.exists()
    by_id = assert_error(pay(client, payment_service_id=str(sandbox.pk)), 400, "/payment_service_id")
    assert "SANDBOX_PAYMENTS" in by_id["message"]
    assert "USD" in body["message"]


def test_gift_cards_alone_go_to_no_service(client, merchant_account):
    from giftcards.services import issued_card_create

    card = issued_card_create(merchant_account=merchant_account, amount=5000, currency="USD")
    payload = {"amount": 1299, "currency": "USD", "gift_cards": [{"number": card.number, "pin": card.pin}]}
    payload["gift_cards"][0]["amount"] = 1299

    body = client.post("/transactions", payload, format="json").json()

    assert (body["status"], body["payment_service"]) == ("authorization_succeeded", None)


def test_transactions_are_listed_by_payment_service(client, sandbox, merchant_account):
    other = PaymentServiceFactory(merchant_account=merchant_account, mock_card=True)
    first = pay(client).json()["id"]
    pay(client, payment_service_id=str(other.pk))

    listed = client.get("/transactions", {"payment_service_id": str(sandbox.pk)}).json()

    assert [item["id"] for item in listed["items"]] == [first]


def test_connection_options_are_those_a_service_of_the_route_reads(client, sandbox):
    body = assert_error(
        pay(client, connection_options={"stripe-card": {"x": 1}}), 400, "/connection_options/stripe-card"
    )

    assert "no payment service this payment may go to reads them" in body["message"]
    assert not Transaction.objects.exists()


def test_the_scheme_id_of_a_first_payment_is_kept_and_sent_on_later_merchant_initiated_ones(
    client, merchant_account, connector
):
    buyer = BuyerFactory(merchant_account=merchant_account)
    first = pay(client, store=True, buyer_id=str(buyer.pk)).json()
    method = PaymentMethod.objects.get()
    assert method.scheme_transaction_id == first["scheme_transaction_id"]

    later = pay(
        client,
        payment_method={"method": "id", "id": str(method.pk)},
        merchant_initiated=True,
        is_subsequent_payment=True,
    )

    assert later.status_code == 201, later.content
    sent = [details["request"] for name, details in connector.calls if name == "authorize"][-1]
    assert sent.merchant_initiated
    assert sent.previous_scheme_transaction_id == first["scheme_transaction_id"]
    assert Transaction.objects.get(pk=later.json()["id"]).previous_scheme_transaction_id == method.scheme_transaction_id


@pytest.mark.parametrize(
    ("seconds", "refused"),
    [(12, False), (0, False), (15, True), (-1, True)],
    ids=["default", "no-failover", "at-the-bound", "negative"],
)
def test_the_payment_time_budget_is_checked_at_start(settings, seconds, refused):
    from paymentservices.checks import routing_time_bounded

    settings.PAYMENT_ROUTING_SECONDS = seconds

    assert [message.id for message in routing_time_bounded(None)] == (["paymentservices.E001"] if refused else [])


@pytest.fixture
def sealed_with_a_removed_key(settings, merchant_account) -> PaymentService:
    """A Stripe service first in the routing order whose credentials were sealed with a key since removed."""
    service = payment_service_update(service=PaymentServiceFactory(merchant_account=merchant_account), position=1)
    settings.CARD_ENCRYPTION_KEYS = ["k2:" + "A" * 43]  # a new key only: the one the service was sealed with is gone
    return service


def test_unreadable_credentials_hand_the_payment_on(client, sandbox, sealed_with_a_removed_key, caplog):
    response = pay(client)

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["payment_service"]["id"]) == ("authorization_succeeded", str(sandbox.pk))
    failed = [details for name, details in events(body["id"]) if name == "authorization_attempt_failed"]
    assert [(item["payment_service_id"], item["error_code"]) for item in failed] == [
        (str(sealed_with_a_removed_key.pk), "invalid_service_configuration")
    ]
    logged = [record for record in caplog.records if record.levelname == "ERROR"]
    assert [str(sealed_with_a_removed_key.pk) in record.getMessage() for record in logged] == [True]


def test_a_payment_for_only_that_service_fails_with_a_clear_error(client, sandbox, sealed_with_a_removed_key):
    response = pay(client, payment_service_id=str(sealed_with_a_removed_key.pk))

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["error_code"]) == ("authorization_failed", "invalid_service_configuration")
    assert "sk_" not in response.content.decode()
    assert Transaction.objects.get().status == "authorization_failed"


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("capture", {}, "authorization_succeeded"),
        ("void", None, "authorization_succeeded"),
        ("refunds", {"amount": 100}, "capture_succeeded"),
        ("refunds/all", None, "capture_succeeded"),
    ],
)
def test_an_operation_on_a_service_whose_credentials_cannot_be_opened_writes_nothing(
    client, sealed_with_a_removed_key, path, body, status
):
    trait = {"captured": True} if status == "capture_succeeded" else {"authorized": True}
    txn = TransactionFactory(payment_service=sealed_with_a_removed_key, **trait)
    before = list(TransactionEvent.objects.filter(transaction=txn).values_list("name", flat=True))

    response = client.post(f"/transactions/{txn.pk}/{path}", body, format="json")

    assert_error(response, 400, "/fields")
    txn.refresh_from_db()
    assert txn.status == status
    assert list(TransactionEvent.objects.filter(transaction=txn).values_list("name", flat=True)) == before
    assert not txn.refunds.exists()
