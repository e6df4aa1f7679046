"""`POST /payouts`, `GET /payouts` and `GET /payouts/{id}`: upstream's shapes, the card masked, refusals by name with
nothing written, the scope matrix and the account boundary."""

from __future__ import annotations

import uuid
from io import StringIO

import pytest

from buyers.tests.factories import BuyerFactory
from payments.bins.services import bin_table_refresh
from payments.bins.sources import read_ranges
from payments.connectors.models import SandboxOperation
from payments.vault.models import VaultedCard
from paymentservices.tests.factories import PaymentServiceFactory
from payouts.models import Payout
from payouts.tests.factories import PaymentMethodFactory, PayoutFactory

pytestmark = pytest.mark.django_db

_RANGES = (
    "iin_start,iin_end,number_length,scheme,brand,type,prepaid,country,bank_name\n"
    "411111,,16,VISA,,CREDIT,N,US,Example Bank of Testing\n"
)
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39"}
MERCHANT = {
    "name": "Acme Games",
    "identification_number": "12345",
    "phone_number": "+14155552671",
    "url": "https://acme.example",
    "statement_descriptor": "ACME WINNINGS",
    "merchant_category_code": "7995",
}


def _body(service, **fields):
    return {"amount": 1299, "currency": "USD", "payment_service_id": str(service.pk), "payment_method": CARD, **fields}


@pytest.fixture
def client(api_client):
    return api_client(scopes=["payouts.read", "payouts.write"])


def test_a_payout_to_a_card_given_once_succeeds_and_leaves_no_card_data(client, sandbox_service):
    response = client.post(
        "/payouts", _body(sandbox_service, category="online_gambling", merchant=MERCHANT), format="json"
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["type"], body["status"], body["amount"], body["currency"]) == ("payout", "succeeded", 1299, "USD")
    assert body["payment_method"]["label"] == "1111"
    assert body["payment_method"]["scheme"] == "visa"
    assert body["payment_method"]["id"] is None
    assert body["payment_service"]["id"] == str(sandbox_service.pk)
    assert body["payment_service"]["payment_service_definition_id"] == "mock-card"
    assert body["payment_service_payout_id"] == f"sandbox-payout-{body['id']}"
    assert body["merchant"]["type"] == "merchant"
    assert body["merchant"]["statement_descriptor"] == "ACME WINNINGS"
    assert body["category"] == "online_gambling"
    assert "4111111111111111" not in response.content.decode()
    # The card given once leaves the vault as soon as the payout is decided.
    assert Payout.objects.get().card is None
    assert not VaultedCard.objects.exists()


def test_a_payout_shows_what_the_bin_table_says_of_the_card(client, sandbox_service):
    bin_table_refresh(ranges=read_ranges(StringIO(_RANGES)))

    response = client.post("/payouts", _body(sandbox_service), format="json")

    assert response.status_code == 201, response.content
    method = response.json()["payment_method"]
    assert method["country"] == "US"
    assert method["details"] == {"bin": "411111", "card_type": "credit", "card_issuer_name": "Example Bank of Testing"}
    # Read back from the payout's own copy: the card given once has left the vault.
    again = client.get(f"/payouts/{response.json()['id']}").json()["payment_method"]
    assert (again["country"], again["details"]["card_type"]) == ("US", "credit")


def test_a_payout_to_a_stored_card_of_a_named_buyer(client, sandbox_service, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    body = _body(sandbox_service, payment_method={"method": "id", "id": str(method.pk)}, buyer_id=str(method.buyer_id))

    response = client.post("/payouts", body, format="json")

    assert response.status_code == 201, response.content
    answer = response.json()
    assert (answer["status"], answer["payment_method"]["id"]) == ("succeeded", str(method.pk))
    assert answer["buyer"]["id"] == str(method.buyer_id)
    # A stored card stays stored.
    assert VaultedCard.objects.filter(pk=method.card_id).exists()


def test_without_a_payment_service_the_first_that_can_pay_out_pays(client, stripe_service, merchant_account):
    sandbox_service = PaymentServiceFactory(merchant_account=merchant_account, mock_card=True)  # after Stripe
    body = _body(sandbox_service)
    del body["payment_service_id"]

    response = client.post("/payouts", body, format="json")

    assert response.status_code == 201, response.content
    assert response.json()["payment_service"]["id"] == str(sandbox_service.pk)


def test_a_declined_payout_and_a_card_that_cannot_receive(client, sandbox_service):
    declined = client.post(
        "/payouts", _body(sandbox_service, payment_method={**CARD, "number": "4000000000000002"}), format="json"
    )
    cannot = client.post(
        "/payouts", _body(sandbox_service, payment_method={**CARD, "number": "4000000000000127"}), format="json"
    )

    assert (declined.status_code, declined.json()["status"]) == (201, "declined")
    assert (cannot.status_code, cannot.json()["status"]) == (201, "declined")
    assert Payout.objects.get(pk=cannot.json()["id"]).error_code == "unsupported_card"


def _refused(response, pointer):
    assert response.status_code == 400, response.content
    body = response.json()
    assert (body["type"], body["code"]) == ("error", "bad_request")
    assert pointer in [detail["pointer"] for detail in body["details"]], body
    return body


def test_a_processor_without_card_payouts_is_refused_by_name(client, stripe_service):
    body = _refused(client.post("/payouts", _body(stripe_service), format="json"), "/payment_service_id")

    assert "cannot pay out" in body["message"]
    assert "stripe-card" in body["message"]
    assert not Payout.objects.exists()
    assert not VaultedCard.objects.exists()


def test_no_service_that_can_pay_out(client, stripe_service):
    body = _body(stripe_service)
    del body["payment_service_id"]

    _refused(client.post("/payouts", body, format="json"), "/payment_service_id")
    assert not Payout.objects.exists()


def test_a_payout_over_the_limit_is_refused(client, sandbox_service, settings):
    settings.PAYOUT_MAX_AMOUNT = 1000
    settings.PAYOUT_MAX_AMOUNTS = {"EUR": 5000}

    body = _refused(client.post("/payouts", _body(sandbox_service, amount=1001), format="json"), "/amount")
    assert "limit" in body["message"]
    assert client.post("/payouts", _body(sandbox_service, amount=1000), format="json").status_code == 201
    sandbox_service.accepted_currencies = ["USD", "EUR"]
    sandbox_service.save()
    eur = client.post("/payouts", _body(sandbox_service, amount=5000, currency="EUR"), format="json")
    assert eur.status_code == 201, eur.content
    assert Payout.objects.count() == 2
    assert SandboxOperation.objects.filter(operation="payout").count() == 2


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"amount": -1}, "/amount"),
        ({"amount": 0}, "/amount"),
        ({"amount": "12"}, "/amount"),
        ({"currency": "usd"}, "/currency"),
        (
            {"payment_method": {"method": "card", "number": "4111111111111112", "expiration_date": "12/39"}},
            "/payment_method/number",
        ),
        (
            {"payment_method": {"method": "card", "number": "4111111111111111", "expiration_date": "01/20"}},
            "/payment_method/expiration_date",
        ),
        ({"payment_method": {"method": "paypal"}}, "/payment_method/method"),
        ({"payment_method": {"method": "id", "id": str(uuid.UUID(int=7))}}, "/payment_method/id"),
        ({"payment_service_id": str(uuid.UUID(int=9))}, "/payment_service_id"),
        ({"category": "lottery"}, "/category"),
        ({"buyer_id": str(uuid.UUID(int=3))}, "/buyer_id"),
        ({"merchant": {**MERCHANT, "phone_number": "555"}}, "/merchant/phone_number"),
        ({"merchant": {"name": "Acme"}}, "/merchant/url"),
        (
            {"connection_options": {"checkout-card": {"processing_channel_id": "a", "source_id": "b"}}},
            "/connection_options",
        ),
        ({"surprise": True}, "/surprise"),
    ],
    ids=[
        "negative",
        "zero",
        "string-amount",
        "lowercase-currency",
        "not-luhn",
        "expired",
        "unknown-method",
        "missing-stored-card",
        "missing-service",
        "unknown-category",
        "missing-buyer",
        "bad-phone",
        "merchant-incomplete",
        "connection-options",
        "unknown-field",
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_writes_nothing(client, sandbox_service, change, pointer):
    response = client.post("/payouts", {**_body(sandbox_service), **change}, format="json")

    assert response.status_code in (400, 404), response.content
    assert pointer in [detail["pointer"] for detail in response.json()["details"]], response.json()
    assert not Payout.objects.exists()
    assert not VaultedCard.objects.exists()
    assert not SandboxOperation.objects.exists()


def test_the_list_and_one_payout(
    client, sandbox_service, merchant_account, other_merchant_account, django_assert_num_queries
):
    first = PayoutFactory(merchant_account=merchant_account, payment_service=sandbox_service, external_identifier="a")
    second = PayoutFactory(
        merchant_account=merchant_account, payment_service=sandbox_service, number="4000000000000002"
    )
    foreign = PayoutFactory(merchant_account=other_merchant_account)
    client.get("/payouts")  # the key and account, read once and cached

    # One query a page or a payout, whatever the page's size (the service read with it).
    with django_assert_num_queries(1):
        page = client.get("/payouts", {"limit": 20}).json()
    assert [item["id"] for item in page["items"]] == [str(second.pk), str(first.pk)]
    assert page["next_cursor"] is None
    assert [i["id"] for i in client.get("/payouts", {"status": "declined"}).json()["items"]] == [str(second.pk)]
    assert [i["id"] for i in client.get("/payouts", {"external_identifier": "a"}).json()["items"]] == [str(first.pk)]

    with django_assert_num_queries(1):
        one = client.get(f"/payouts/{first.pk}")
    assert (one.status_code, one.json()["id"]) == (200, str(first.pk))
    assert client.get(f"/payouts/{foreign.pk}").status_code == 404
    assert client.get("/payouts/not-a-uuid").status_code == 404
    assert client.get("/payouts", {"status": "lost"}).status_code == 400


@pytest.mark.parametrize(
    ("scopes", "read", "write"),
    [
        (["payouts.read"], 200, 403),
        (["payouts.write"], 403, 201),
        (["*.read"], 200, 403),
        (["*.write"], 403, 201),
        (["transactions.read", "transactions.write"], 403, 403),
        (["embed"], 403, 403),
    ],
)
def test_the_scope_matrix(api_client, sandbox_service, scopes, read, write):
    client = api_client(scopes=scopes)

    assert client.get("/payouts").status_code == read
    assert client.post("/payouts", _body(sandbox_service), format="json").status_code == write


def test_without_a_token(sandbox_service):
    from rest_framework.test import APIClient

    assert APIClient().get("/payouts").status_code == 401
    assert APIClient().post("/payouts", _body(sandbox_service), format="json").status_code == 401


def test_a_guest_buyer_is_kept_on_the_payout(client, sandbox_service):
    guest = {"display_name": "Ada", "billing_details": {"first_name": "Ada", "last_name": "Lovelace"}}
    response = client.post("/payouts", _body(sandbox_service, buyer=guest), format="json")

    assert response.status_code == 201, response.content
    buyer = response.json()["buyer"]
    assert (buyer["id"], buyer["display_name"], buyer["billing_details"]["last_name"]) == (None, "Ada", "Lovelace")


def test_a_stored_card_of_another_buyer_is_not_found(client, sandbox_service, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    other = BuyerFactory(merchant_account=merchant_account)
    body = _body(sandbox_service, payment_method={"method": "id", "id": str(method.pk)}, buyer_id=str(other.pk))

    response = client.post("/payouts", body, format="json")

    assert response.status_code == 404
    assert not Payout.objects.exists()
