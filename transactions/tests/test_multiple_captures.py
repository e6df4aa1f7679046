"""`final: false`: several captures of one authorization where the processor takes them (the sandbox here; Adyen in
its folder's tests), never more in total than authorized, the final one closing it; refused by name elsewhere."""

import pytest

from payments.connectors import Outcome
from payments.tests.assertions import assert_error
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Capture, Transaction, TransactionStatus
from transactions.tests.factories import TransactionFactory
from transactions.tests.test_api import create, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def _capture(client, transaction_id: str, **body):
    return post(client, f"/transactions/{transaction_id}/capture", body, HTTP_PREFER="resource=transaction-capture")


def test_partial_captures_add_up_to_the_authorized_amount(client):
    txn = create(client, amount=1000)

    first = _capture(client, txn["id"], amount=300, final=False).json()
    second = _capture(client, txn["id"], amount=450, final=False).json()
    last = _capture(client, txn["id"], final=True).json()  # all that is left

    assert [answer["status"] for answer in (first, second, last)] == ["succeeded"] * 3
    assert (first["transaction"]["status"], first["transaction"]["captured_amount"]) == ("capture_succeeded", 300)
    assert (last["transaction"]["captured_amount"], last["transaction"]["authorized_amount"]) == (1000, 1000)
    listed = client.get(f"/transactions/{txn['id']}/captures").json()["items"]
    assert [(c["amount"], c["final"], c["status"]) for c in listed] == [
        (250, True, "succeeded"),
        (450, False, "succeeded"),
        (300, False, "succeeded"),
    ]
    assert len({capture.pk for capture in Capture.objects.all()}) == 3


def test_the_final_capture_releases_the_rest(client):
    txn = create(client, amount=1000)
    _capture(client, txn["id"], amount=300, final=False)
    _capture(client, txn["id"], amount=200)

    after = _capture(client, txn["id"], amount=100)

    assert "already been captured" in assert_error(after, 409)["message"]
    stored = Transaction.objects.get(pk=txn["id"])
    assert (stored.status, stored.captured_amount, stored.authorized_amount) == ("capture_succeeded", 500, 1000)
    assert stored.captures.count() == 2


def test_never_more_in_total_than_authorized(client):
    txn = create(client, amount=1000)
    _capture(client, txn["id"], amount=700, final=False)

    response = _capture(client, txn["id"], amount=301, final=False)

    assert "what is left to capture (300)" in assert_error(response, 400, "/amount")["message"]
    stored = Transaction.objects.get(pk=txn["id"])
    assert (stored.captured_amount, stored.captures.count(), stored.status) == (700, 1, "capture_succeeded")


def test_a_refused_later_capture_leaves_the_earlier_ones(client, connector):
    txn = create(client, amount=1000)
    _capture(client, txn["id"], amount=400, final=False)
    connector.script["capture"] = Outcome.DECLINED

    refused = _capture(client, txn["id"], amount=100, final=False).json()

    assert (refused["status"], refused["transaction"]["status"]) == ("declined", "capture_succeeded")
    assert refused["transaction"]["captured_amount"] == 400
    connector.script.clear()
    assert _capture(client, txn["id"]).json()["transaction"]["captured_amount"] == 1000


def test_money_captured_so_far_can_be_refunded_and_no_more(client):
    txn = create(client, amount=1000)
    _capture(client, txn["id"], amount=400, final=False)

    over = post(client, f"/transactions/{txn['id']}/refunds", {"amount": 401})
    refunded = post(client, f"/transactions/{txn['id']}/refunds", {"amount": 400})

    assert_error(over, 400, "/amount")
    assert refunded.status_code == 201
    assert _capture(client, txn["id"], amount=600).json()["transaction"]["captured_amount"] == 1000


def test_several_captures_are_refused_by_name_where_the_processor_takes_one(client, merchant_account):
    stripe = PaymentServiceFactory(merchant_account=merchant_account)
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True, payment_service=stripe)

    response = _capture(client, str(txn.pk), amount=100, final=False)

    body = assert_error(response, 400, "/final")
    assert "Stripe (stripe-card)" in body["message"]
    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount, txn.captures.count()) == (TransactionStatus.AUTHORIZATION_SUCCEEDED, 0, 0)


def test_final_must_be_a_boolean(client):
    txn = create(client)

    assert_error(_capture(client, txn["id"], final="false"), 400, "/final")
    assert Transaction.objects.get(pk=txn["id"]).status == TransactionStatus.AUTHORIZATION_SUCCEEDED
