"""`GET /transactions/{id}/events` and `/actions`: upstream's shapes, scopes, accounts, pages, query counts."""

import uuid

import pytest

from payments.tests.assertions import assert_error
from payments.tests.reference import assert_matches_reference
from transactions.services.actions import transaction_capture
from transactions.services.refunds import refund_create
from transactions.services.state import SYSTEM, Actor
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def captured(merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)
    transaction_capture(txn=txn, actor=Actor.api_key("kid-1"))
    refund_create(txn=txn, actor=SYSTEM, amount=100)
    return txn


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read"])


def test_events_list_the_history_newest_first_as_upstream(client, captured):
    response = client.get(f"/transactions/{captured.pk}/events")

    assert response.status_code == 200
    body = response.json()
    assert_matches_reference(body, "TransactionEvents")
    assert body["limit"] == 100  # upstream's default for this list
    assert [item["context"]["event"] for item in body["items"]] == [
        "refund_succeeded",
        "refund_requested",
        "capture_succeeded",
        "capture_requested",
    ]
    captured_event = body["items"][2]
    assert captured_event["name"] == "transaction-updated-status"
    assert captured_event["context"]["status"] == "capture_succeeded"
    assert captured_event["context"]["previous_status"] == "capture_pending"
    assert captured_event["context"]["actor"] == {"type": "api_key", "id": "kid-1"}
    assert body["items"][0]["context"]["actor"] == {"type": "system"}
    assert len({item["id"] for item in body["items"]}) == 4
    assert client.get(f"/transactions/{captured.pk}/events").json() == body  # ids are stable


def test_events_page_both_ways(client, captured):
    first = client.get(f"/transactions/{captured.pk}/events?limit=3").json()
    second = client.get(f"/transactions/{captured.pk}/events?limit=3&cursor={first['next_cursor']}").json()
    back = client.get(f"/transactions/{captured.pk}/events?limit=3&cursor={second['previous_cursor']}").json()

    assert (len(first["items"]), len(second["items"]), second["next_cursor"]) == (3, 1, None)
    assert back["items"] == first["items"]


def test_actions_are_empty_without_routing_rules(client, captured):
    response = client.get(f"/transactions/{captured.pk}/actions")

    assert response.status_code == 200
    assert_matches_reference(response.json(), "TransactionActions")
    assert response.json() == {"items": []}


@pytest.mark.parametrize("path", ["events", "actions"])
@pytest.mark.parametrize(
    ("scopes", "allowed"),
    [
        (["transactions.read"], True),
        (["*.read"], True),
        (["transactions.write"], False),
        (["buyers.read"], False),
        (["embed"], False),
    ],
    ids=["read", "any-read", "write-only", "other-resource", "embed"],
)
def test_scope_matrix(api_client, captured, path, scopes, allowed):
    response = api_client(scopes=scopes).get(f"/transactions/{captured.pk}/{path}")

    if allowed:
        assert response.status_code == 200
    else:
        assert_error(response, 403)


@pytest.mark.parametrize("path", ["events", "actions"])
def test_another_accounts_or_a_missing_transaction_is_not_found(api_client, other_merchant_account, captured, path):
    theirs = TransactionFactory(merchant_account=other_merchant_account)
    client = api_client(scopes=["transactions.read"])

    for transaction_id in (theirs.pk, uuid.uuid4(), "not-a-uuid"):
        assert_error(client.get(f"/transactions/{transaction_id}/{path}"), 404)


@pytest.mark.parametrize(
    ("query", "pointer"), [("limit=0", "/limit"), ("limit=101", "/limit"), ("cursor=forged", "/cursor")]
)
def test_bad_query_is_a_400(client, captured, query, pointer):
    assert_error(client.get(f"/transactions/{captured.pk}/events?{query}"), 400, pointer)


def test_events_and_actions_cost_a_fixed_number_of_queries(client, captured, django_assert_num_queries):
    client.get(f"/transactions/{captured.pk}/events")  # warms the token and account caches

    with django_assert_num_queries(2):  # the transaction, then the page
        client.get(f"/transactions/{captured.pk}/events")
    with django_assert_num_queries(1):
        client.get(f"/transactions/{captured.pk}/actions")
