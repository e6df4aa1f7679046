"""Every capture is a record: `GET /transactions/{id}/captures[/{capture_id}]`, who may read them, and the history
of captures made before they were records."""

import importlib
import uuid

import pytest
from django.apps import apps
from gr4vy import models as sdk_models
from gr4vy.utils import unmarshal_json

from payments.connectors import Outcome
from payments.tests.assertions import assert_error
from transactions.models import Capture, Transaction, TransactionStatus
from transactions.tests.factories import TransactionFactory
from transactions.tests.test_api import create, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def _captures(client, transaction_id: str) -> list[dict]:
    response = client.get(f"/transactions/{transaction_id}/captures")
    assert response.status_code == 200, response.content
    return response.json()["items"]


def test_a_capture_is_a_record_listed_and_read_in_upstreams_shape(client):
    txn = create(client)
    answer = post(
        client,
        f"/transactions/{txn['id']}/capture",
        {"amount": 1000, "external_identifier": "shipment-1"},
        HTTP_PREFER="resource=transaction-capture",
    ).json()

    (listed,) = _captures(client, txn["id"])
    assert answer["capture_id"] == listed["id"]
    assert answer["payment_service_capture_id"] is not None
    assert {key: listed[key] for key in ("type", "amount", "currency", "status", "final", "external_identifier")} == {
        "type": "capture",
        "amount": 1000,
        "currency": "USD",
        "status": "succeeded",
        "final": True,
        "external_identifier": "shipment-1",
    }
    assert (listed["transaction_id"], listed["merchant_account_id"]) == (txn["id"], "default")
    assert listed["captured_at"]
    one = client.get(f"/transactions/{txn['id']}/captures/{listed['id']}")
    assert (one.status_code, one.json()) == (200, listed)
    assert isinstance(unmarshal_json(one.content.decode(), sdk_models.Capture), sdk_models.Capture)


def test_intent_capture_records_its_one_capture(client):
    txn = create(client, intent="capture")

    (capture,) = _captures(client, txn["id"])

    assert (capture["amount"], capture["status"], capture["final"]) == (1299, "succeeded", True)


def test_a_refused_capture_is_a_record_too(client, connector):
    txn = create(client)
    connector.script["capture"] = Outcome.DECLINED

    answer = post(client, f"/transactions/{txn['id']}/capture", {}, HTTP_PREFER="resource=transaction-capture")

    (capture,) = _captures(client, txn["id"])
    assert answer.json()["status"] == "declined"
    assert (capture["status"], capture["raw_response_code"], capture["captured_at"]) == ("declined", "05", None)
    assert Transaction.objects.get(pk=txn["id"]).status == TransactionStatus.AUTHORIZATION_SUCCEEDED


def test_gift_cards_alone_capture_no_card_part(client, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True, authorized_amount=0, method=None)

    response = post(client, f"/transactions/{txn.pk}/capture", {})

    assert response.json()["status"] == "capture_succeeded"
    assert _captures(client, str(txn.pk)) == []


@pytest.mark.parametrize(
    ("scopes", "status"),
    [
        (["transactions.read"], 200),
        (["*.read"], 200),
        (["transactions.write"], 403),
        (["buyers.read"], 403),
    ],
)
def test_reading_captures_needs_transactions_read(api_client, merchant_account, scopes, status):
    capture = _captured(merchant_account)
    reader = api_client(scopes=scopes)

    assert reader.get(f"/transactions/{capture.transaction_id}/captures").status_code == status
    assert reader.get(f"/transactions/{capture.transaction_id}/captures/{capture.pk}").status_code == status


def test_another_accounts_or_another_transactions_capture_is_not_found(
    client, merchant_account, other_merchant_account
):
    theirs = _captured(other_merchant_account)
    mine = _captured(merchant_account)

    for path in (
        f"/transactions/{theirs.transaction_id}/captures",
        f"/transactions/{theirs.transaction_id}/captures/{theirs.pk}",
        f"/transactions/{mine.transaction_id}/captures/{theirs.pk}",
        f"/transactions/{mine.transaction_id}/captures/{uuid.uuid4()}",
        f"/transactions/{mine.transaction_id}/captures/not-a-uuid",
    ):
        assert_error(client.get(path), 404)


def test_captures_cost_a_fixed_number_of_queries(client, merchant_account, django_assert_num_queries):
    capture = _captured(merchant_account)
    path = f"/transactions/{capture.transaction_id}/captures"
    client.get(path)  # warms the key and account caches, as every later request finds them

    with django_assert_num_queries(2):  # the transaction, then its captures
        assert len(client.get(path).json()["items"]) == 1
    with django_assert_num_queries(2):
        assert client.get(f"{path}/{capture.pk}").status_code == 200


def _captured(account) -> Capture:
    txn = TransactionFactory(merchant_account=account, captured=True)
    return Capture.objects.create(
        merchant_account=account,
        transaction=txn,
        sequence=1,
        amount=txn.captured_amount,
        currency=txn.currency,
        status=Capture.Status.SUCCEEDED,
        captured_at=txn.captured_at,
    )


def test_the_history_gets_a_capture_for_each_captured_transaction(merchant_account):
    """The data migration: captured before captures were records, one capture each, of what was captured, when."""
    backfill = importlib.import_module("transactions.migrations.0014_capture_history").backfill_captures
    captured = TransactionFactory(merchant_account=merchant_account, captured=True)
    pending = TransactionFactory(merchant_account=merchant_account, authorized=True, status="capture_pending")
    pending.events.create(name="capture_requested", actor_type="system", to_status="capture_pending", amount=700)
    TransactionFactory(merchant_account=merchant_account, authorized=True)
    already = _captured(merchant_account)

    backfill(apps, None)
    backfill(apps, None)  # once only

    made = Capture.objects.exclude(pk=already.pk).order_by("status")
    assert [(c.transaction_id, c.amount, c.status, c.sequence) for c in made] == [
        (pending.pk, 700, "pending", 1),
        (captured.pk, captured.captured_amount, "succeeded", 1),
    ]
    assert made[1].created_at == captured.captured_at == made[1].captured_at
    assert Capture.objects.filter(transaction=already.transaction).count() == 1
