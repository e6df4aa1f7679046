"""`/payment-methods/{id}/payment-service-tokens`: a stored card kept at a service's processor (the sandbox here; Stripe
and Adyen in their folders), listed with its state, dropped; refused by name where nothing can be kept."""

from __future__ import annotations

import uuid

import pytest

from paymentmethods.tests.factories import PaymentMethodFactory
from payments.audit.models import AuditLogEntry
from payments.tests.assertions import assert_error
from paymentservices.models import PaymentService, PaymentServiceToken
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db

WRITE = ["payment-methods.write"]
READ = ["payment-methods.read"]


@pytest.fixture
def method(merchant_account):
    return PaymentMethodFactory(merchant_account=merchant_account)


@pytest.fixture
def sandbox(merchant_account) -> PaymentService:
    return PaymentServiceFactory(mock_card=True, merchant_account=merchant_account)


def _url(method_id: object) -> str:
    return f"/payment-methods/{method_id}/payment-service-tokens"


def _create(client, method_id: object, service_id: object, **extra):
    body = {"payment_service_id": str(service_id), "redirect_url": "https://shop.example/back", **extra}
    return client.post(_url(method_id), body, format="json")


def test_a_stored_card_is_kept_at_the_sandbox_and_listed(api_client, method, sandbox):
    response = _create(api_client(scopes=WRITE), method.id, sandbox.id, security_code="123")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["type"] == "payment-service-token"
    assert (body["status"], body["approval_url"]) == ("succeeded", None)
    assert body["token"] == PaymentServiceToken.objects.get().token
    assert "4111111111111111" not in body["token"]
    assert (body["payment_method_id"], body["payment_service_id"]) == (str(method.id), str(sandbox.id))
    listed = api_client(scopes=READ).get(_url(method.id)).json()
    assert [item["id"] for item in listed["items"]] == [body["id"]]


def test_a_card_the_issuer_refuses_is_a_failed_token(api_client, merchant_account, sandbox):
    refused = PaymentMethodFactory(merchant_account=merchant_account, number="4000000000000002")

    body = _create(api_client(scopes=WRITE), refused.id, sandbox.id).json()

    assert (body["status"], body["token"]) == ("failed", None)
    assert "refused" in PaymentServiceToken.objects.get().reason


def test_the_list_filters_by_service(api_client, method, sandbox, merchant_account):
    other = PaymentServiceFactory(mock_card=True, merchant_account=merchant_account)
    client = api_client(scopes=WRITE + READ)
    _create(client, method.id, sandbox.id)
    kept_at_other = _create(client, method.id, other.id).json()

    listed = client.get(_url(method.id), {"payment_service_id": str(other.id)})
    assert listed.status_code == 200, listed.content
    listed = listed.json()

    assert [item["id"] for item in listed["items"]] == [kept_at_other["id"]]


def test_a_second_working_token_at_one_service_is_a_409(api_client, method, sandbox):
    client = api_client(scopes=WRITE)
    _create(client, method.id, sandbox.id)

    assert_error(_create(client, method.id, sandbox.id), 409, "/payment_service_id")
    assert PaymentServiceToken.objects.count() == 1


def test_a_processor_that_keeps_no_cards_is_refused_by_name(api_client, method, merchant_account):
    paypal = PaymentServiceFactory(paypal=True, merchant_account=merchant_account)

    body = assert_error(_create(api_client(scopes=WRITE), method.id, paypal.id), 400, "/payment_service_id")

    assert "does not keep stored cards" in body["message"]
    assert not PaymentServiceToken.objects.exists()


def test_another_accounts_service_is_refused(api_client, method, other_merchant_account):
    theirs = PaymentServiceFactory(mock_card=True, merchant_account=other_merchant_account)

    assert_error(_create(api_client(scopes=WRITE), method.id, theirs.id), 400, "/payment_service_id")
    assert not PaymentServiceToken.objects.exists()


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"redirect_url": "https://shop.example/back"}, "/payment_service_id"),
        ({"payment_service_id": "not-a-uuid", "redirect_url": "https://shop.example/back"}, "/payment_service_id"),
        ({"payment_service_id": str(uuid.uuid4())}, "/redirect_url"),
        (
            {"payment_service_id": str(uuid.uuid4()), "redirect_url": "https://a.example", "security_code": "12"},
            "/security_code",
        ),
        (
            {"payment_service_id": str(uuid.uuid4()), "redirect_url": "https://a.example", "card_number": "4111"},
            "/card_number",
        ),
    ],
    ids=["no-service", "service-not-uuid", "no-redirect", "short-code", "unknown-field"],
)
def test_bad_input_is_a_400_naming_the_field(api_client, method, body, pointer):
    assert_error(api_client(scopes=WRITE).post(_url(method.id), body, format="json"), 400, pointer)
    assert not PaymentServiceToken.objects.exists()


def test_a_bad_filter_is_a_400(api_client, method):
    assert_error(api_client(scopes=READ).get(_url(method.id), {"payment_service_id": "x"}), 400, "/payment_service_id")


def test_scopes(api_client, method, sandbox):
    assert_error(_create(api_client(scopes=READ), method.id, sandbox.id), 403)
    assert_error(api_client(scopes=["buyers.read"]).get(_url(method.id)), 403)
    assert not PaymentServiceToken.objects.exists()


def test_a_method_not_found_or_another_accounts_is_a_404(api_client, other_merchant_account, sandbox):
    theirs = PaymentMethodFactory(merchant_account=other_merchant_account)
    client = api_client(scopes=WRITE + READ)

    for method_id in (uuid.uuid4(), theirs.id):
        assert_error(client.get(_url(method_id)), 404)
        assert_error(_create(client, method_id, sandbox.id), 404)
        assert_error(client.delete(f"{_url(method_id)}/{uuid.uuid4()}"), 404)


def test_a_token_is_deleted_and_another_methods_token_is_not_found(api_client, merchant_account, method, sandbox):
    client = api_client(scopes=WRITE + READ)
    token = _create(client, method.id, sandbox.id).json()
    other_method = PaymentMethodFactory(merchant_account=merchant_account, number="5555555555554444")

    assert_error(client.delete(f"{_url(other_method.id)}/{token['id']}"), 404)
    assert client.delete(f"{_url(method.id)}/{token['id']}").status_code == 204
    assert_error(client.delete(f"{_url(method.id)}/{token['id']}"), 404)
    assert client.get(_url(method.id)).json()["items"] == []


def test_creates_and_deletes_are_audited(api_client, method, sandbox):
    client = api_client(scopes=WRITE)
    token = _create(client, method.id, sandbox.id).json()
    client.delete(f"{_url(method.id)}/{token['id']}")

    entries = AuditLogEntry.objects.filter(resource_type="payment-service-token").order_by("created_at")
    assert [(entry.action, entry.resource_id) for entry in entries] == [
        ("created", token["id"]),
        ("deleted", token["id"]),
    ]


def test_the_list_costs_the_same_whatever_its_size(api_client, method, merchant_account, django_assert_num_queries):
    client = api_client(scopes=WRITE + READ)
    for _ in range(3):
        _create(client, method.id, PaymentServiceFactory(mock_card=True, merchant_account=merchant_account).id)

    with django_assert_num_queries(2):
        assert len(client.get(_url(method.id)).json()["items"]) == 3


def test_routing_prefers_a_service_that_keeps_the_stored_card(api_client, merchant_account, method, sandbox):
    """The account's own sandbox service stands first; the one that keeps the card (added after it) is asked first."""
    client = api_client(scopes=[*WRITE, "transactions.write"])
    _create(client, method.id, sandbox.id)
    body = {"amount": 100, "currency": "USD", "payment_method": {"method": "id", "id": str(method.id)}}

    answer = client.post("/transactions", body, format="json").json()

    assert sandbox.position > 1
    assert (answer["status"], answer["payment_service"]["id"]) == ("authorization_succeeded", str(sandbox.id))


def test_routing_keeps_the_order_when_no_service_keeps_the_card(api_client, merchant_account, method, sandbox):
    client = api_client(scopes=["transactions.write"])
    body = {"amount": 100, "currency": "USD", "payment_method": {"method": "id", "id": str(method.id)}}

    answer = client.post("/transactions", body, format="json").json()

    assert answer["payment_service"]["id"] != str(sandbox.id)
