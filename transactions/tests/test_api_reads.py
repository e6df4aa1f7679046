"""The transactions API: read, list (with its filters) and update over HTTP."""

import json
import uuid

import pytest

from buyers.tests.factories import BuyerFactory
from payments.tests.assertions import assert_error
from transactions.models import Transaction
from transactions.tests.factories import RefundFactory, TransactionFactory
from transactions.tests.test_api import (
    create,
)

# A well-formed id no row has: a parameter fixed at import, so every test worker collects the same test ids.
UNKNOWN_ID = "00000000-0000-4000-8000-00000000dead"

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def test_get_returns_the_transaction(client):
    created = create(client)

    response = client.get(f"/transactions/{created['id']}")

    assert response.status_code == 200
    assert response.json() == created


@pytest.mark.parametrize("transaction_id", [UNKNOWN_ID, "not-a-uuid"])
def test_unknown_transactions_are_404(client, transaction_id):
    assert_error(client.get(f"/transactions/{transaction_id}"), 404)


def test_put_changes_external_identifier_and_replaces_metadata(client):
    created = create(client, external_identifier="a", metadata={"x": "1", "y": "2"})

    response = client.put(
        f"/transactions/{created['id']}", {"metadata": {"z": "3"}, "connection_options": None}, format="json"
    )

    assert response.status_code == 200
    assert (response.json()["external_identifier"], response.json()["metadata"]) == ("a", {"z": "3"})


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [
        ({"status": "capture_succeeded"}, "/status"),
        ({"captured_amount": 5}, "/captured_amount"),
        ({"metadata": ["a"]}, "/metadata"),
        ({"external_identifier": 5}, "/external_identifier"),
        ({"colour": "red"}, "/colour"),
    ],
    ids=["status", "amount", "metadata-list", "identifier-number", "unknown"],
)
def test_invalid_put_changes_nothing(client, payload, pointer):
    created = create(client, external_identifier="a")

    assert_error(client.put(f"/transactions/{created['id']}", payload, format="json"), 400, pointer)

    txn = Transaction.objects.get()
    assert (txn.external_identifier, txn.status, txn.captured_amount) == ("a", "authorization_succeeded", 0)


def test_list_pages_newest_first(client, merchant_account):
    made = [TransactionFactory(merchant_account=merchant_account, authorized=True) for _ in range(3)]

    response = client.get("/transactions", {"limit": 2})

    assert response.status_code == 200
    payload = response.json()
    assert [item["id"] for item in payload["items"]] == [str(made[2].pk), str(made[1].pk)]
    assert payload["next_cursor"]
    rest = client.get("/transactions", {"limit": 2, "cursor": payload["next_cursor"]}).json()
    assert ([item["id"] for item in rest["items"]], rest["next_cursor"]) == ([str(made[0].pk)], None)


@pytest.fixture
def listed(merchant_account):
    """Six transactions that differ in one filterable way each."""
    from datetime import timedelta

    from django.utils import timezone

    buyer = BuyerFactory(merchant_account=merchant_account, external_identifier="buyer-x", display_name="Grace Hopper")
    old = TransactionFactory(merchant_account=merchant_account, declined=True, amount=100, currency="EUR")
    Transaction.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(days=10), updated_at=timezone.now() - timedelta(days=10)
    )
    return {
        "old": old,
        "buyer": TransactionFactory(
            merchant_account=merchant_account, authorized=True, buyer=buyer, buyer_external_identifier="buyer-x"
        ),
        "refunded": RefundFactory(transaction__merchant_account=merchant_account, transaction__amount=5000).transaction,
        "tagged": TransactionFactory(
            merchant_account=merchant_account,
            authorized=True,
            metadata={"order": "7", "channel": "web"},
            external_identifier="ext-7",
            country="GB",
        ),
        "session": TransactionFactory(
            merchant_account=merchant_account, captured=True, amount=2500, checkout_session_id=uuid.uuid4()
        ),
        "voided": TransactionFactory(merchant_account=merchant_account, status="authorization_voided"),
    }


FILTERS = [
    ({"status": "authorization_declined"}, ["old"]),
    ({"status": ["capture_succeeded", "authorization_voided"]}, ["refunded", "session", "voided"]),
    ({"buyer_external_identifier": "buyer-x"}, ["buyer"]),
    ({"amount_eq": 100}, ["old"]),
    ({"amount_gte": 2500}, ["refunded", "session"]),
    ({"amount_lte": 1299}, ["old", "buyer", "tagged", "voided"]),
    ({"currency": "EUR"}, ["old"]),
    ({"currency": ["EUR", "USD"]}, ["old", "buyer", "refunded", "tagged", "session", "voided"]),
    ({"country": "GB"}, ["tagged"]),
    ({"external_identifier": "ext-7"}, ["tagged"]),
    ({"has_refunds": "true"}, ["refunded"]),
    ({"has_refunds": "false"}, ["old", "buyer", "tagged", "session", "voided"]),
    ({"metadata": '{"order": "7"}'}, ["tagged"]),
    ({"metadata": ['{"order": "7"}', '{"channel": "web"}']}, ["tagged"]),
    ({"metadata": '{"order": "7", "channel": "app"}'}, []),
    ({"search": "grace"}, ["buyer"]),
    ({"search": "ext-7"}, ["tagged"]),
    ({"payment_method_label": "1111", "status": "authorization_declined"}, ["old"]),
]


@pytest.mark.parametrize(("query", "expected"), FILTERS, ids=[json.dumps(q) for q, _ in FILTERS])
def test_list_filters(client, listed, query, expected):
    response = client.get("/transactions", query)

    assert response.status_code == 200, response.content
    assert {item["id"] for item in response.json()["items"]} == {str(listed[name].pk) for name in expected}


def test_list_filters_by_id_fields_and_dates(client, listed):
    from django.utils import timezone

    cases = {
        "buyer_id": (str(listed["buyer"].buyer_id), {"buyer"}),
        "checkout_session_id": (str(listed["session"].checkout_session_id), {"session"}),
        "created_at_lte": ((timezone.now() - timezone.timedelta(days=5)).isoformat(), {"old"}),
        "updated_at_gte": ((timezone.now() - timezone.timedelta(days=5)).isoformat(), set(listed) - {"old"}),
        "search": (str(listed["voided"].pk), {"voided"}),
    }
    for name, (value, expected) in cases.items():
        items = client.get("/transactions", {name: value}).json()["items"]
        assert {item["id"] for item in items} == {str(listed[key].pk) for key in expected}, name


@pytest.mark.parametrize(
    ("query", "pointer"),
    [
        ({"status": "refunded"}, "/status"),
        ({"amount_eq": "12.5"}, "/amount_eq"),
        ({"amount_gte": "-1"}, "/amount_gte"),
        ({"buyer_id": "nope"}, "/buyer_id"),
        ({"created_at_gte": "yesterday"}, "/created_at_gte"),
        ({"has_refunds": "maybe"}, "/has_refunds"),
        ({"metadata": "[1]"}, "/metadata"),
        ({"metadata": "{"}, "/metadata"),
        ({"currency": "usd"}, "/currency"),
        ({"limit": "0"}, "/limit"),
    ],
    ids=lambda value: json.dumps(value) if isinstance(value, dict) else value,
)
def test_invalid_filters_are_a_400_naming_the_parameter(client, query, pointer):
    payload = assert_error(client.get("/transactions", query), 400, pointer)
    assert payload["details"][0]["location"] == "query"


def test_list_and_detail_cost_a_fixed_number_of_queries(client, merchant_account, django_assert_num_queries):
    for _ in range(3):
        RefundFactory(transaction__merchant_account=merchant_account)
    client.get("/transactions")  # warms the key and account caches, as every later request finds them

    with django_assert_num_queries(3):  # the page, then the gift card redemptions and the disputes of all its rows
        assert len(client.get("/transactions").json()["items"]) == 3
    for _ in range(5):
        TransactionFactory(merchant_account=merchant_account)
    with django_assert_num_queries(3):
        assert len(client.get("/transactions").json()["items"]) == 8
    transaction_id = Transaction.objects.first().pk
    with django_assert_num_queries(3):  # the transaction, its redemptions, its disputes
        assert client.get(f"/transactions/{transaction_id}").status_code == 200
    with django_assert_num_queries(2):  # the transaction, then its refunds
        assert client.get(f"/transactions/{transaction_id}/refunds").status_code == 200
