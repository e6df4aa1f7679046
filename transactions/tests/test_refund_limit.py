"""A transaction's refunds are listed whole, as upstream lists them (no cursor, no limit), so they are bounded:
at most `MAX_REFUNDS_PER_TRANSACTION` refund attempts per transaction."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from payments.tests.assertions import assert_error
from transactions.models import MAX_REFUNDS_PER_TRANSACTION, Refund, TransactionEvent
from transactions.tests.factories import RefundFactory, TransactionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.fixture
def txn(merchant_account):
    return TransactionFactory(merchant_account=merchant_account, captured=True, amount=10_000)


def _fill(txn, count: int) -> None:
    RefundFactory.create_batch(count, transaction=txn, amount=1)
    txn.refunded_amount = count
    txn.save(update_fields=["refunded_amount"])


def test_the_bound_is_upstreams_largest_page():
    assert MAX_REFUNDS_PER_TRANSACTION == 100


def _queries(client, txn) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/transactions/{txn.id}/refunds").status_code == 200
    return len(queries)


def test_the_list_answers_every_refund_in_one_page(client, txn):
    _fill(txn, 1)
    _queries(client, txn)  # keys and accounts cached, as on a warm server
    one = _queries(client, txn)
    _fill(txn, MAX_REFUNDS_PER_TRANSACTION - 1)

    assert _queries(client, txn) == one  # as many queries for 100 refunds as for one
    response = client.get(f"/transactions/{txn.id}/refunds")

    assert response.status_code == 200, response.content
    body = response.json()
    assert len(body["items"]) == MAX_REFUNDS_PER_TRANSACTION
    assert (body["next_cursor"], body["previous_cursor"], body["limit"]) == (None, None, MAX_REFUNDS_PER_TRANSACTION)
    stamps = [(item["created_at"], item["id"]) for item in body["items"]]
    assert stamps == sorted(stamps, reverse=True)


@pytest.mark.parametrize("query", [{"cursor": "x"}, {"limit": "20"}], ids=["cursor", "limit"])
def test_the_list_takes_no_paging_parameters(client, txn, query):
    (name,) = query

    assert_error(client.get(f"/transactions/{txn.id}/refunds", query), 400, f"/{name}", location="query")


def test_a_refund_past_the_bound_is_a_409_and_writes_nothing(client, txn):
    _fill(txn, MAX_REFUNDS_PER_TRANSACTION)
    events = TransactionEvent.objects.count()

    response = client.post(f"/transactions/{txn.id}/refunds", {"amount": 1}, format="json")

    body = assert_error(response, 409)
    assert str(MAX_REFUNDS_PER_TRANSACTION) in body["message"]
    assert Refund.objects.filter(transaction=txn).count() == MAX_REFUNDS_PER_TRANSACTION
    assert TransactionEvent.objects.count() == events
    txn.refresh_from_db()
    assert txn.refunded_amount == MAX_REFUNDS_PER_TRANSACTION


def test_refunds_all_past_the_bound_is_a_409_and_writes_nothing(client, txn):
    _fill(txn, MAX_REFUNDS_PER_TRANSACTION)

    response = client.post(f"/transactions/{txn.id}/refunds/all", {}, format="json")

    assert_error(response, 409)
    assert Refund.objects.filter(transaction=txn).count() == MAX_REFUNDS_PER_TRANSACTION
    txn.refresh_from_db()
    assert txn.refunded_amount == MAX_REFUNDS_PER_TRANSACTION


def test_the_last_refund_under_the_bound_is_taken(client, txn):
    _fill(txn, MAX_REFUNDS_PER_TRANSACTION - 1)

    response = client.post(f"/transactions/{txn.id}/refunds", {"amount": 1}, format="json")

    assert response.status_code == 201, response.content
    assert Refund.objects.filter(transaction=txn).count() == MAX_REFUNDS_PER_TRANSACTION
