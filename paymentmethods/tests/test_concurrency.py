"""Real concurrent writers against PostgreSQL: the unique constraint, not luck, makes one method of one card."""

import pytest
from rest_framework.test import APIClient

from buyers.tests.factories import BuyerFactory
from paymentmethods.models import PaymentMethod
from payments.tests.races import at_once
from payments.vault.models import VaultedCard

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
WRITERS = 4


def _race(token: str, requests: list[tuple[str, dict]]) -> list:
    def send(path: str, body: dict):
        def post():
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
            return client.post(path, body, format="json")

        return post

    return at_once([send(path, body) for path, body in requests])


@pytest.mark.parametrize("owner", ["a buyer", "no buyer"])
def test_concurrent_stores_of_one_card_make_one_method(token_for, merchant_account, owner):
    body = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39"}
    if owner == "a buyer":
        body["buyer_id"] = str(BuyerFactory(merchant_account=merchant_account).pk)

    responses = _race(token_for(["payment-methods.write"]), [("/payment-methods", body)] * WRITERS)

    assert [response.status_code for response in responses] == [201] * WRITERS
    assert len({response.json()["id"] for response in responses}) == 1
    assert PaymentMethod.objects.count() == 1
    assert VaultedCard.objects.count() == 1  # the losers' sealed copies rolled back with their insert


def test_concurrent_store_true_payments_make_one_method(token_for, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    body = {
        "amount": 100,
        "currency": "USD",
        "store": True,
        "buyer_id": str(buyer.pk),
        "payment_method": {"method": "card", "number": "5555555555554444", "expiration_date": "12/39"},
    }

    responses = _race(token_for(["transactions.write"]), [("/transactions", body)] * WRITERS)

    assert [response.status_code for response in responses] == [201] * WRITERS
    method = PaymentMethod.objects.get()
    assert {response.json()["payment_method"]["id"] for response in responses} == {str(method.pk)}
