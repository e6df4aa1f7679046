"""The transactions API: capture, void, cancel and refunds over HTTP, and who may call each endpoint."""

import uuid

import pytest
from gr4vy import models as sdk_models
from gr4vy.utils import unmarshal_json

from payments.rest.models import IdempotencyRecord
from payments.tests.assertions import assert_error
from transactions.models import Refund, Transaction
from transactions.tests.factories import RefundFactory, TransactionFactory
from transactions.tests.test_api import body, create, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def test_capture_answers_the_transaction_or_the_capture_wrapper(client):
    first = create(client)
    second = create(client)

    plain = post(client, f"/transactions/{first['id']}/capture", {"amount": 1000, "final": True})
    wrapped = post(client, f"/transactions/{second['id']}/capture", {}, HTTP_PREFER="resource=transaction-capture")

    assert plain.status_code == wrapped.status_code == 200
    assert (plain.json()["type"], plain.json()["captured_amount"]) == ("transaction", 1000)
    wrapper = wrapped.json()
    assert {key: wrapper[key] for key in ("type", "status", "code", "raw_response_code")} == {
        "type": "transaction-capture",
        "status": "succeeded",
        "code": None,
        "raw_response_code": "00",
    }
    assert (wrapper["transaction"]["status"], wrapper["transaction"]["captured_amount"]) == ("capture_succeeded", 1299)
    assert isinstance(
        unmarshal_json(wrapped.content.decode(), sdk_models.TransactionCapture), sdk_models.TransactionCapture
    )


def test_void_answers_the_transaction_or_the_void_wrapper(client):
    first = create(client)
    second = create(client)

    plain = client.post(f"/transactions/{first['id']}/void")
    wrapped = client.post(f"/transactions/{second['id']}/void", HTTP_PREFER="resource=transaction-void")

    assert (plain.status_code, plain.json()["status"]) == (200, "authorization_voided")
    assert (wrapped.json()["type"], wrapped.json()["status"]) == ("transaction-void", "succeeded")
    assert wrapped.json()["transaction"]["voided_at"]


def test_cancel_answers_the_cancel_wrapper_or_refuses_an_authorized_transaction(client, merchant_account):
    pending = TransactionFactory(merchant_account=merchant_account)
    authorized = create(client)

    canceled = client.post(f"/transactions/{pending.pk}/cancel")
    refused = client.post(f"/transactions/{authorized['id']}/cancel")

    assert canceled.status_code == 200
    assert (canceled.json()["type"], canceled.json()["status"]) == ("transaction-cancel", "succeeded")
    assert canceled.json()["transaction"]["canceled_at"]
    payload = assert_error(refused, 409)
    assert (
        payload["message"] == "This transaction cannot be canceled: it is authorized but not captured. Void it instead."
    )


def test_invalid_transitions_are_409s_that_change_nothing(client):
    created = create(client)
    post(client, f"/transactions/{created['id']}/capture", {})
    before = client.get(f"/transactions/{created['id']}").json()

    responses = {
        "capture twice": post(client, f"/transactions/{created['id']}/capture", {}),
        "void after capture": client.post(f"/transactions/{created['id']}/void"),
    }

    for name, response in responses.items():
        assert assert_error(response, 409)["code"] == "duplicate_record", name
    assert client.get(f"/transactions/{created['id']}").json() == before


INVALID_CAPTURE = [
    ({"amount": 0}, "/amount"),
    ({"amount": -5}, "/amount"),
    ({"amount": "100"}, "/amount"),
    ({"amount": 1300}, "/amount"),
    ({"final": "true"}, "/final"),
    ({"reauthorize_if_authorization_expired": 1}, "/reauthorize_if_authorization_expired"),
    ({"tip": 5}, "/tip"),
]


@pytest.mark.parametrize(("payload", "pointer"), INVALID_CAPTURE, ids=[p for _, p in INVALID_CAPTURE])
def test_invalid_capture_is_a_400_and_changes_nothing(client, payload, pointer):
    created = create(client)

    assert_error(
        post(client, f"/transactions/{created['id']}/capture", payload, HTTP_IDEMPOTENCY_KEY="c"), 400, pointer
    )

    txn = Transaction.objects.get()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    assert not IdempotencyRecord.objects.exists()


# --- refunds -----------------------------------------------------------------------------------------------


def test_refunds_create_list_and_get(client):
    created = create(client, intent="capture", external_identifier="order-9")
    base = f"/transactions/{created['id']}/refunds"

    partial = post(client, base, {"amount": 299, "reason": "late", "external_identifier": "r-1"})
    rest = post(client, base, {})

    assert partial.status_code == rest.status_code == 201
    first = partial.json()
    assert {key: first[key] for key in ("type", "amount", "status", "target_type", "target_id", "reason")} == {
        "type": "refund",
        "amount": 299,
        "status": "succeeded",
        "target_type": "payment-method",
        "target_id": None,
        "reason": "late",
    }
    assert (first["transaction_id"], first["transaction_external_identifier"]) == (created["id"], "order-9")
    assert rest.json()["amount"] == 1000
    unmarshal_json(partial.content.decode(), sdk_models.Refund)
    listed = client.get(base).json()
    assert [item["id"] for item in listed["items"]] == [rest.json()["id"], first["id"]]
    assert client.get(f"{base}/{first['id']}").json() == first
    assert client.get(f"/refunds/{first['id']}").json() == first
    assert client.get(f"/transactions/{created['id']}").json()["refunded_amount"] == 1299


def test_refunds_all_answers_the_refund_list(client):
    created = create(client, intent="capture")

    response = post(client, f"/transactions/{created['id']}/refunds/all", None)

    assert response.status_code == 201
    payload = response.json()
    assert [(item["amount"], item["target_type"]) for item in payload["items"]] == [(1299, "payment-method")]
    unmarshal_json(response.content.decode(), sdk_models.Refunds)
    assert_error(post(client, f"/transactions/{created['id']}/refunds/all", {"reason": "again"}), 409)


def test_refunding_an_uncaptured_transaction_is_refused(client):
    created = create(client)

    payload = assert_error(post(client, f"/transactions/{created['id']}/refunds", {"amount": 1}), 409)

    assert "authorized but not captured" in payload["message"]
    assert not Refund.objects.exists()


INVALID_REFUND = [
    ({"amount": 0}, "/amount"),
    ({"amount": 1.5}, "/amount"),
    ({"amount": 1300}, "/amount"),
    ({"target_type": "bank"}, "/target_type"),
    ({"target_id": "nope", "target_type": "gift-card-redemption"}, "/target_id"),
    ({"target_type": "gift-card-redemption", "target_id": str(uuid.uuid4())}, "/target_id"),
    ({"target_type": "gift-card-redemption"}, "/target_id"),
    ({"target_id": str(uuid.uuid4())}, "/target_id"),
    ({"reason": 5}, "/reason"),
    ({"why": "x"}, "/why"),
]


@pytest.mark.parametrize(
    ("payload", "pointer"), INVALID_REFUND, ids=[f"{p}-{n}" for n, (_, p) in enumerate(INVALID_REFUND)]
)
def test_invalid_refund_is_a_400_and_refunds_nothing(client, payload, pointer):
    created = create(client, intent="capture")

    assert_error(post(client, f"/transactions/{created['id']}/refunds", payload), 400, pointer)

    assert not Refund.objects.exists()
    assert Transaction.objects.get().refunded_amount == 0


# --- access ------------------------------------------------------------------------------------------------


def _requests(transaction_id, refund_id):
    base = f"/transactions/{transaction_id}"
    return {
        "list": ("get", "/transactions", None),
        "create": ("post", "/transactions", body()),
        "get": ("get", base, None),
        "update": ("put", base, {"metadata": {"a": "b"}}),
        "capture": ("post", f"{base}/capture", {}),
        "void": ("post", f"{base}/void", None),
        "cancel": ("post", f"{base}/cancel", None),
        "refunds": ("get", f"{base}/refunds", None),
        "refund": ("post", f"{base}/refunds", {"amount": 1}),
        "refund all": ("post", f"{base}/refunds/all", None),
        "refund get": ("get", f"{base}/refunds/{refund_id}", None),
        "refund by id": ("get", f"/refunds/{refund_id}", None),
    }


READ = {"list", "get", "refunds", "refund get", "refund by id"}
ALL = {
    "list",
    "create",
    "get",
    "update",
    "capture",
    "void",
    "cancel",
    "refunds",
    "refund",
    "refund all",
    "refund get",
    "refund by id",
}
SCOPES = [
    (["transactions.read"], READ),
    (["*.read"], READ),
    (["transactions.write"], ALL - READ),
    (["*.write"], ALL - READ),
    (["gift-cards.write"], {"refund all"}),
    (["embed"], {"create", "get"}),
    (["buyers.read", "buyers.write"], set()),
]


@pytest.mark.parametrize(("scopes", "allowed"), SCOPES, ids=[",".join(s) for s, _ in SCOPES])
def test_scope_matrix(api_client, merchant_account, scopes, allowed):
    refund = RefundFactory(transaction__merchant_account=merchant_account, amount=1)
    client = api_client(scopes=scopes, embed={"amount": 1299, "currency": "USD"})

    for name, (method, path, payload) in _requests(refund.transaction_id, refund.pk).items():
        response = getattr(client, method)(path, payload, format="json")
        if name in allowed:
            assert response.status_code != 403, (name, response.content)
        else:
            assert response.status_code == 403, (name, response.content)


def test_another_accounts_transactions_and_refunds_are_not_found(api_client, merchant_account, other_merchant_account):
    refund = RefundFactory(transaction__merchant_account=other_merchant_account, amount=1)
    client = api_client(scopes=["transactions.read", "transactions.write"])

    for name, (method, path, payload) in _requests(refund.transaction_id, refund.pk).items():
        if name in {"list", "create"}:
            continue
        assert_error(getattr(client, method)(path, payload, format="json"), 404), name
    assert client.get("/transactions").json()["items"] == []
    txn = Transaction.objects.get()
    assert (txn.status, txn.refunded_amount, txn.metadata) == ("capture_succeeded", 0, None)
    assert Refund.objects.count() == 1


def test_missing_token_is_401(anonymous_client, merchant_account):
    assert_error(anonymous_client.get("/transactions"), 401)
    assert_error(anonymous_client.post("/transactions", body(), format="json"), 401)
