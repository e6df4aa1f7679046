"""A payment's currency is money someone can be paid in: ISO 4217's codes for no currency, testing, precious
metals, funds and units of account are refused by name wherever a payment's currency is taken."""

import pytest

from checkout.models import CheckoutSession
from checkout.tests.factories import CheckoutSessionFactory
from giftcards.models import IssuedGiftCard
from giftcards.services import issued_card_create
from payments.errors import DomainError
from payments.rest.models import IdempotencyRecord
from payments.tests.assertions import assert_error
from payments.validators import NOT_PAYABLE_CURRENCIES
from transactions.models import Transaction
from transactions.tests.conftest import CARD

pytestmark = pytest.mark.django_db

NOT_PAYABLE = sorted(NOT_PAYABLE_CURRENCIES)
# Currencies whose codes start with X too, but which are a country's money.
PAYABLE = ["USD", "EUR", "JPY", "XAF", "XOF", "XCD", "XPF"]


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(
        scopes=["transactions.write", "checkout-sessions.write", "payment-options.read", "transactions.read"]
    )


def test_the_issue_codes_are_all_refused():
    expected = {"XXX", "XTS", "XAU", "XAG", "XPD", "XPT", "XDR", "XBA", "XBB", "XBC", "XBD", "XSU", "XUA"}
    assert expected <= set(NOT_PAYABLE)


@pytest.mark.parametrize("currency", NOT_PAYABLE)
def test_a_card_payment_in_a_code_that_is_not_money_is_a_400_naming_the_currency(client, currency):
    payload = {"amount": 1299, "currency": currency, "payment_method": CARD}

    response = client.post("/transactions", payload, format="json", HTTP_IDEMPOTENCY_KEY=f"cur-{currency}")

    body = assert_error(response, 400, "/currency", location="body")
    assert currency in body["details"][0]["message"]
    assert body["details"][0]["type"] == "currency_not_payable"
    assert not Transaction.objects.exists()
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.parametrize("currency", PAYABLE)
def test_a_card_payment_in_a_currency_is_taken(client, currency):
    response = client.post(
        "/transactions", {"amount": 1299, "currency": currency, "payment_method": CARD}, format="json"
    )

    assert response.status_code == 201, response.content
    assert response.json()["currency"] == currency


@pytest.mark.parametrize("currency", ["XXX", "XAU", "CHE"])
def test_a_checkout_session_in_a_code_that_is_not_money_is_a_400(client, merchant_account, currency):
    session = CheckoutSessionFactory(merchant_account=merchant_account)

    created = client.post("/checkout/sessions", {"amount": 100, "currency": currency}, format="json")
    updated = client.put(f"/checkout/sessions/{session.id}", {"amount": 100, "currency": currency}, format="json")

    assert_error(created, 400, "/currency", location="body")
    assert_error(updated, 400, "/currency", location="body")
    assert CheckoutSession.objects.count() == 1
    session.refresh_from_db()
    assert session.currency != currency


@pytest.mark.parametrize("currency", ["XXX", "XTS"])
def test_payment_options_for_a_code_that_is_not_money_are_a_400(client, currency):
    response = client.post("/payment-options", {"amount": 100, "currency": currency}, format="json")

    assert_error(response, 400, "/currency", location="body")


@pytest.mark.parametrize("currency", ["XXX", "XAG", "USN"])
def test_a_gift_card_is_not_issued_in_a_code_that_is_not_money(merchant_account, currency):
    with pytest.raises(DomainError) as refused:
        issued_card_create(merchant_account=merchant_account, amount=5000, currency=currency)

    assert refused.value.details[0]["pointer"] == "/currency"
    assert currency in refused.value.message
    assert not IssuedGiftCard.objects.exists()
