"""Over the API a transaction tells its disputes' truth: `disputed` while one is open or was lost, the list filter
agrees, and a refund of money the bank took back is a 409 that says why."""

from __future__ import annotations

import pytest

from disputes.tests.factories import DisputeFactory
from payments.tests.assertions import assert_error
from paymentservices.processors.seam import DisputeState
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
