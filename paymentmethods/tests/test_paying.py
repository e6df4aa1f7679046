"""Paying with a stored method, and `store: true`, through `POST /transactions`."""

import uuid

import pytest

from buyers.services import buyer_delete
from buyers.tests.factories import BuyerFactory
from checkout.tests.factories import CheckoutSessionFactory
from giftcards.tests.factories import IssuedGiftCardFactory
from paymentmethods.models import PaymentMethod
from paymentmethods.services import payment_method_delete, payment_method_update
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.tests.assertions import assert_error
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

SDK_DEFAULTS = {
    "store": False,
    "is_subsequent_payment": False,
    "merchant_initiated": False,
    "async_capture": False,
    "account_funding_transaction": False,
    "allow_partial_authorization": False,
}
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


@pytest.fixture
def client(api_client):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.fixture
def method(merchant_account):
    return PaymentMethodFactory(merchant_account=merchant_account)


def pay(client, payment_method, **fields):
    body = {"amount": 1299, "currency": "USD", "payment_method": payment_method, **SDK_DEFAULTS, **fields}
    return client.post("/transactions", body, format="json")


def by_id(method, **fields):
    return {"method": "id", "id": str(method.pk), **fields}


def test_a_customer_initiated_payment_with_its_security_code(client, method):
    response = pay(client, by_id(method, security_code="123"))

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["cvv_response_code"]) == ("authorization_succeeded", "match")
    assert (body["payment_method"]["id"], body["payment_method"]["label"]) == (str(method.pk), "1111")
    assert body["buyer"]["id"] == str(method.buyer_id)  # the method's own buyer
    method.refresh_from_db()
    assert (method.usage_count, method.cit_usage_count) == (1, 1)
    assert method.last_used_at == method.cit_last_used_at is not None
    assert method.card.encrypted_security_code is None  # the code was used, never kept


def test_a_merchant_initiated_payment_is_counted_apart_and_told_to_the_processor(client, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account, number="4000000000000341")

    customer = pay(client, by_id(method)).json()
    merchant = pay(
        client, by_id(method), merchant_initiated=True, payment_source="recurring", is_subsequent_payment=True
    )

    assert (customer["status"], customer["cvv_response_code"]) == ("authorization_succeeded", "not_provided")
    body = merchant.json()
    assert (body["status"], body["raw_response_code"]) == ("authorization_declined", "R1")  # the sandbox was told
    assert (body["merchant_initiated"], body["payment_source"], body["is_subsequent_payment"]) == (
        True,
        "recurring",
        True,
    )
    method.refresh_from_db()
    assert (method.usage_count, method.cit_usage_count) == (2, 1)
    assert method.last_used_at > method.cit_last_used_at


def test_a_card_the_issuer_replaced_is_flagged(client, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account, number="4000000000000358")

    body = pay(client, by_id(method)).json()

    assert (body["status"], body["error_code"]) == ("authorization_declined", "card_replaced")
    method.refresh_from_db()
    assert method.has_replacement


def test_the_list_finds_the_payments_of_a_method(client, method):
    paid = pay(client, by_id(method)).json()["id"]
    pay(client, CARD)

    page = client.get("/transactions", {"payment_method_id": str(method.pk)}).json()

    assert [item["id"] for item in page["items"]] == [paid]


REFUSED = [
    (lambda m: by_id(m, security_code="12345"), {}, "/payment_method/security_code"),
    (lambda m: by_id(m, security_code="1234"), {}, "/payment_method/security_code"),  # visa: 3 digits
    (lambda m: by_id(m, security_code="123"), {"merchant_initiated": True}, "/payment_method/security_code"),
    (lambda m: by_id(m, bogus=1), {}, "/payment_method/bogus"),
    (lambda m: {"method": "id", "id": "not-a-uuid"}, {}, "/payment_method/id"),
    (lambda m: by_id(m), {"store": "yes"}, "/store"),
]


@pytest.mark.parametrize(("payment_method", "fields", "pointer"), REFUSED, ids=[p for *_, p in REFUSED])
def test_bad_input_is_refused_and_nothing_is_written(client, method, payment_method, fields, pointer):
    assert_error(pay(client, payment_method(method), **fields), 400, pointer)
    assert not Transaction.objects.exists()
    method.refresh_from_db()
    assert method.usage_count == 0


def test_an_expired_card_is_refused_at_use(client, method):
    method.card.expiration_month, method.card.expiration_year = 1, 2024
    method.card.save(update_fields=["expiration_month", "expiration_year"])

    body = assert_error(pay(client, by_id(method)), 400, "/payment_method/id")

    assert "expired" in body["message"]
    assert not Transaction.objects.exists()
    payment_method_update(method=method, expiration=(1, 2040))  # the issuer renewed it: usable again
    assert pay(client, by_id(method)).status_code == 201


def test_a_method_of_no_buyer_pays_for_no_buyer(client, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account, buyer=None)

    response = pay(client, by_id(method, security_code="123"))

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["payment_method"]["id"], body["buyer"]) == (
        "authorization_succeeded",
        str(method.pk),
        None,
    )
    method.refresh_from_db()
    assert (method.usage_count, method.cit_usage_count) == (1, 1)


@pytest.mark.parametrize(
    "case", ["another-buyer", "no-buyer", "another-account", "deleted-method", "deleted-buyer", "session-id"]
)
def test_a_method_that_is_not_yours_answers_exactly_like_a_missing_one(
    client, merchant_account, other_merchant_account, case
):
    """`no-buyer`: a payment naming a buyer pays with that buyer's methods only, not the merchant's methods of no
    buyer (docs/payment-methods.md)."""
    method = PaymentMethodFactory(merchant_account=merchant_account, **({"buyer": None} if case == "no-buyer" else {}))
    fields: dict = {}
    if case in ("another-buyer", "no-buyer"):
        fields = {"buyer_id": str(BuyerFactory(merchant_account=merchant_account).pk)}
    elif case == "another-account":
        method = PaymentMethodFactory(merchant_account=other_merchant_account)
    named = by_id(method)
    if case == "deleted-method":
        payment_method_delete(method=method)
    elif case == "deleted-buyer":
        buyer_delete(buyer=method.buyer)
    elif case == "session-id":
        named = {"method": "checkout-session", "id": str(method.pk)}

    response = pay(client, named, **fields)
    missing = pay(client, {"method": "checkout-session" if case == "session-id" else "id", "id": str(uuid.uuid4())})

    assert_error(response, 404)
    assert response.json() == missing.json()
    assert not Transaction.objects.exists()


# --- store: true ---------------------------------------------------------------------------------------------


def test_store_true_keeps_an_approved_card_for_the_buyer(client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)

    body = pay(client, CARD, store=True, buyer_id=str(buyer.pk)).json()
    again = pay(client, CARD, store=True, buyer_id=str(buyer.pk)).json()

    method = PaymentMethod.objects.get()
    assert (body["status"], body["payment_method"]["id"]) == ("authorization_succeeded", str(method.pk))
    assert again["payment_method"]["id"] == str(method.pk)  # the same card: the same method
    assert (method.buyer_id, method.card.last4, method.card.encrypted_security_code) == (buyer.pk, "1111", None)
    assert method.card_id != Transaction.objects.get(pk=body["id"]).vaulted_card_id  # its own vault row


def test_store_true_keeps_the_card_of_a_checkout_session(client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)

    body = pay(client, {"method": "checkout-session", "id": str(session.pk)}, store=True, buyer_id=str(buyer.pk)).json()

    assert body["payment_method"]["id"] == str(PaymentMethod.objects.get(buyer=buyer).pk)


def test_a_declined_card_is_not_stored(client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)

    body = pay(client, {**CARD, "number": "4000000000000002"}, store=True, buyer_id=str(buyer.pk)).json()

    assert (body["status"], body["payment_method"]["id"]) == ("authorization_declined", None)
    assert not PaymentMethod.objects.exists()


def test_store_true_needs_a_card_and_a_buyer(client, merchant_account):
    card = IssuedGiftCardFactory(merchant_account=merchant_account)
    buyer = BuyerFactory(merchant_account=merchant_account)
    gift_cards_only = {
        "amount": 1299,
        "currency": "USD",
        **SDK_DEFAULTS,
        "store": True,
        "buyer_id": str(buyer.pk),
        "gift_cards": [{"number": card.number, "pin": card.pin, "amount": 1299}],
    }

    assert_error(client.post("/transactions", gift_cards_only, format="json"), 400, "/store")
    assert_error(pay(client, CARD, store=True), 400, "/store")
    assert not Transaction.objects.exists()
    assert not PaymentMethod.objects.exists()


# --- embed tokens --------------------------------------------------------------------------------------------


def _embed(api_client, **pins):
    return api_client(scopes=["embed"], embed={"amount": 1299, "currency": "USD", **pins})


def test_an_embed_token_pays_with_its_pinned_buyers_method_only(api_client, merchant_account):
    mine = PaymentMethodFactory(merchant_account=merchant_account)
    theirs = PaymentMethodFactory(merchant_account=merchant_account)
    embed = _embed(api_client, buyer_id=str(mine.buyer_id))

    assert pay(embed, by_id(mine), buyer_id=str(mine.buyer_id)).status_code == 201
    assert_error(pay(embed, by_id(theirs), buyer_id=str(mine.buyer_id)), 404)
    assert_error(pay(embed, by_id(theirs), buyer_id=str(theirs.buyer_id)), 403)
    assert Transaction.objects.count() == 1


def test_an_embed_token_without_a_buyer_uses_no_stored_method(api_client, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    embed = _embed(api_client)

    assert_error(pay(embed, by_id(method)), 403)
    assert_error(pay(embed, CARD, store=True), 403)
    assert not Transaction.objects.exists()
