"""A query parameter an endpoint does not read is a 400 naming it, on every endpoint and method, before anything is
written; the parameters an endpoint does read keep working."""

import uuid

import pytest

from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory
from checkout.models import CheckoutSession
from checkout.tests.factories import CheckoutSessionFactory
from payments.tests.assertions import assert_error
from transactions.models import Transaction
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["*.read", "*.write"])


def _paths(merchant_account) -> list[tuple[str, str, object]]:
    txn = TransactionFactory(merchant_account=merchant_account, authorized=True)
    buyer = BuyerFactory(merchant_account=merchant_account)
    session = CheckoutSessionFactory(merchant_account=merchant_account)
    return [
        ("get", "/buyers", None),
        ("post", "/buyers", {"display_name": "Ada"}),
        ("get", f"/buyers/{buyer.pk}", None),
        ("put", f"/buyers/{buyer.pk}", {"display_name": "Ada"}),
        ("delete", f"/buyers/{buyer.pk}", None),
        ("get", "/gift-cards", None),
        ("get", "/buyers/gift-cards", None),
        ("post", "/gift-cards/balances", {"items": []}),
        ("post", "/checkout/sessions", {}),
        ("get", f"/checkout/sessions/{session.pk}", None),
        ("delete", f"/checkout/sessions/{session.pk}", None),
        ("put", f"/checkout/sessions/{session.pk}/fields", {"payment_method": CARD}),
        ("get", "/transactions", None),
        ("post", "/transactions", {"amount": 100, "currency": "USD", "payment_method": CARD}),
        ("get", f"/transactions/{txn.pk}", None),
        ("put", f"/transactions/{txn.pk}", {"external_identifier": "x"}),
        ("post", f"/transactions/{txn.pk}/capture", {}),
        ("post", f"/transactions/{txn.pk}/void", None),
        ("get", f"/transactions/{txn.pk}/refunds", None),
        ("get", f"/refunds/{uuid.uuid4()}", None),
    ]


def test_every_endpoint_refuses_a_parameter_it_does_not_read_and_writes_nothing(client, merchant_account):
    paths = _paths(merchant_account)
    before = (Buyer.objects.count(), CheckoutSession.objects.count(), Transaction.objects.count())

    for method, path, payload in paths:
        response = getattr(client, method)(f"{path}?bogus=1", payload, format="json")
        body = assert_error(response, 400, "/bogus", location="query")
        assert body["details"][0]["message"] == "Not a supported query parameter of this endpoint.", path

    assert (Buyer.objects.count(), CheckoutSession.objects.count(), Transaction.objects.count()) == before
    assert Transaction.objects.get().status == "authorization_succeeded"


def test_paging_parameters_are_read_only_by_paginated_lists(client, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account)

    assert client.get("/transactions", {"limit": 5}).status_code == 200
    assert_error(client.get(f"/transactions/{txn.pk}/refunds", {"limit": 5}), 400, "/limit", location="query")
    assert_error(client.get(f"/transactions/{txn.pk}", {"limit": 5}), 400, "/limit", location="query")
    assert_error(client.get("/buyers/gift-cards", {"limit": 5}), 400, "/limit", location="query")


def test_a_caller_without_access_learns_nothing_about_parameters(api_client, anonymous_client, merchant_account):
    assert anonymous_client.get("/transactions?bogus=1").status_code == 401
    assert api_client(scopes=["buyers.read"]).get("/transactions?bogus=1").status_code == 403


@pytest.mark.parametrize("path", ["/buyers/gift-cards", "/buyers/payment-methods"])
@pytest.mark.parametrize(
    ("query", "pointer"),
    [
        ("buyer_external_identifier=&order_by=asc", "/buyer_external_identifier"),
        ("order_by=", "/order_by"),
        ("sort_by=", "/sort_by"),
        ("buyer_id=", "/buyer_id"),
        ("buyer_external_identifier=a&buyer_external_identifier=b", "/buyer_external_identifier"),
    ],
    ids=["blank-external-identifier", "blank-order", "blank-sort", "blank-buyer-id", "given-twice"],
)
def test_a_buyer_list_refuses_a_blank_or_repeated_parameter_instead_of_ignoring_it(
    client, merchant_account, path, query, pointer
):
    buyer = BuyerFactory(merchant_account=merchant_account)
    response = client.get(f"{path}?buyer_id={buyer.pk}&{query}" if "buyer_id" not in query else f"{path}?{query}")
    assert_error(response, 400, pointer, location="query")
