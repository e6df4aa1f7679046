"""Upstream's processor-session operations, refused by name: `POST /transactions/{id}/session` and
`GET /checkout/sessions/{id}/acquirer` (docs/card-details.md, "Processor sessions")."""

import uuid

import pytest
from rest_framework.test import APIClient

from checkout.tests.factories import CheckoutSessionFactory
from payments.tests.assertions import assert_error
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def writer(api_client, merchant_account):
    return api_client(scopes=["transactions.write"])


def test_a_transaction_session_is_refused_by_name(writer, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account)

    for body in ({}, {"payload": {"key": "value"}}, None):
        response = writer.post(f"/transactions/{txn.pk}/session?token=abc", body, format="json")
        envelope = assert_error(response, 400)
        assert "POST /transactions/{transaction_id}/session is not supported" in envelope["message"]


@pytest.mark.parametrize(
    ("body", "pointer"), [({"payload": "x"}, "/payload"), ({"bogus": 1}, "/bogus")], ids=["payload", "unknown"]
)
def test_a_bad_body_is_400_naming_the_field(writer, merchant_account, body, pointer):
    txn = TransactionFactory(merchant_account=merchant_account)

    assert_error(writer.post(f"/transactions/{txn.pk}/session", body, format="json"), 400, pointer)


def test_another_accounts_or_a_missing_transaction_is_404(writer, other_merchant_account):
    theirs = TransactionFactory(merchant_account=other_merchant_account)

    assert_error(writer.post(f"/transactions/{theirs.pk}/session", {}, format="json"), 404)
    assert_error(writer.post(f"/transactions/{uuid.uuid4()}/session", {}, format="json"), 404)


@pytest.mark.parametrize(("scopes", "status"), [(["transactions.read"], 403), (["embed"], 403), (["*.write"], 400)])
def test_scopes(api_client, merchant_account, scopes, status):
    txn = TransactionFactory(merchant_account=merchant_account)
    client = api_client(scopes=scopes, embed={"amount": 1299, "currency": "USD"})

    assert_error(client.post(f"/transactions/{txn.pk}/session", {}, format="json"), status)


def test_a_checkout_sessions_acquirer_data_is_refused_by_name(merchant_account):
    session = CheckoutSessionFactory()

    envelope = assert_error(APIClient().get(f"/checkout/sessions/{session.pk}/acquirer"), 400)
    assert "GET /checkout/sessions/{session_id}/acquirer is not supported" in envelope["message"]
    assert_error(APIClient().get(f"/checkout/sessions/{uuid.uuid4()}/acquirer"), 404)
    assert_error(APIClient().get(f"/checkout/sessions/{session.pk}/acquirer?bogus=1"), 400, "/bogus")
