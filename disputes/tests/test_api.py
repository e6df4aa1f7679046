"""Over the API a transaction tells its disputes' truth: `disputed` while one is open or was lost, the list filter
agrees, and a refund of money the bank took back is a 409 that says why."""

from __future__ import annotations

import pytest

from disputes.tests.factories import DisputeFactory
from payments.choices import DisputeState
from payments.tests.assertions import assert_error
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db
S = DisputeState


@pytest.fixture
def reader(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.mark.parametrize(
    ("state", "disputed"),
    [
        (S.INQUIRY, True),
        (S.NEEDS_RESPONSE, True),
        (S.UNDER_REVIEW, True),
        (S.LOST, True),
        (S.ACCEPTED, True),
        (S.WON, False),
    ],
)
def test_disputed_follows_the_disputes_state(reader, merchant_account, state, disputed):
    dispute = DisputeFactory(transaction__merchant_account=merchant_account, state=state)
    plain = TransactionFactory(merchant_account=merchant_account, captured=True)
    txn = dispute.transaction

    assert reader.get(f"/transactions/{txn.pk}").json()["disputed"] is disputed
    assert reader.get(f"/transactions/{plain.pk}").json()["disputed"] is False
    listed = {item["id"]: item["disputed"] for item in reader.get("/transactions").json()["items"]}
    assert listed == {str(txn.pk): disputed, str(plain.pk): False}
    only = [item["id"] for item in reader.get("/transactions", {"disputed": "true"}).json()["items"]]
    others = [item["id"] for item in reader.get("/transactions", {"disputed": "false"}).json()["items"]]
    assert (only, sorted(others)) == (
        ([str(txn.pk)], [str(plain.pk)]) if disputed else ([], sorted([str(txn.pk), str(plain.pk)]))
    )


def test_a_refund_of_money_the_bank_took_back_is_a_409_that_says_why(reader, merchant_account):
    dispute = DisputeFactory(transaction__merchant_account=merchant_account, state=S.LOST)

    response = reader.post(f"/transactions/{dispute.transaction.pk}/refunds", {}, format="json")

    assert_error(response, 409)
    assert "disputes the bank decided for the buyer took back 1299" in response.json()["message"]
    assert reader.get(f"/transactions/{dispute.transaction.pk}").json()["refunded_amount"] == 0


def test_another_accounts_disputes_are_not_listed(reader, merchant_account):
    DisputeFactory(transaction__merchant_account__id="other", state=S.LOST)

    assert reader.get("/transactions", {"disputed": "true"}).json()["items"] == []


# --- GET /transactions/{id}/disputes (an extension) -------------------------------------------------------------


def test_a_transactions_disputes_are_listed_with_what_the_bank_took_back(
    api_client, merchant_account, django_assert_num_queries
):
    won = DisputeFactory(transaction__merchant_account=merchant_account, state=S.WON, amount=300)
    txn = won.transaction
    lost = DisputeFactory(transaction=txn, state=S.LOST, amount=1000, processor_dispute_id="dp_lost")
    client = api_client(scopes=["disputes.read"])
    client.get(f"/transactions/{txn.pk}/disputes")  # warms the key and account caches

    with django_assert_num_queries(3):  # the transaction, its disputes, their answers (none: no documents read)
        response = client.get(f"/transactions/{txn.pk}/disputes")

    body = response.json()
    assert response.status_code == 200
    assert body["taken_back_amount"] == 1000
    assert [(item["id"], item["state"], item["amount"]) for item in body["items"]] == [
        (str(lost.pk), "lost", 1000),
        (str(won.pk), "won", 300),
    ]
    assert body["items"][0] == {
        "type": "dispute",
        "id": str(lost.pk),
        "merchant_account_id": merchant_account.pk,
        "transaction_id": str(txn.pk),
        "payment_service_id": str(txn.payment_service_id),
        "payment_service_dispute_id": "dp_lost",
        "state": "lost",
        "reason": "fraudulent",
        "amount": 1000,
        "currency": "USD",
        "due_at": "2026-11-27T12:00:00.000000+00:00",
        "closed_at": None,
        "answer": None,
        "created_at": body["items"][0]["created_at"],
        "updated_at": body["items"][0]["updated_at"],
    }


@pytest.mark.parametrize(
    ("scopes", "status"),
    [(["disputes.read"], 200), (["*.read"], 200), (["transactions.read"], 403), (["disputes.write"], 403)],
)
def test_the_disputes_list_needs_its_own_scope(api_client, merchant_account, scopes, status):
    dispute = DisputeFactory(transaction__merchant_account=merchant_account)

    response = api_client(scopes=scopes).get(f"/transactions/{dispute.transaction_id}/disputes")

    assert response.status_code == status
    if status == 403:
        assert_error(response, 403)


def test_another_accounts_transaction_has_no_disputes_here(api_client, merchant_account):
    theirs = DisputeFactory(transaction__merchant_account__id="other")
    client = api_client(scopes=["disputes.read"])

    assert_error(client.get(f"/transactions/{theirs.transaction_id}/disputes"), 404)
    assert_error(client.get("/transactions/not-a-uuid/disputes"), 404)
