"""An embed token reads one transaction its own checkout could have made, and nothing else.

The drop-in fetches a payment that waited for the buyer (3-D Secure) once the buyer is back, with the token it paid
with (docs/frontend.md): the amount and currency the token pins, paid with the checkout session it pins or belonging
to the buyer it pins. Every other transaction answers as a missing one.
"""

import uuid

import pytest
from django.core.cache import caches

from buyers.tests.factories import BuyerFactory
from payments.tests.assertions import assert_error
from paymentservices.processors.paypal.tests.mock import GUIDE_ANSWERS
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

PINS = {"amount": 1299, "currency": "USD"}


def _get(client, txn):
    return client.get(f"/transactions/{txn.pk}")


def test_the_checkout_sessions_transaction_is_read(api_client, merchant_account):
    session_id = uuid.uuid4()
    txn = TransactionFactory(merchant_account=merchant_account, checkout_session_id=session_id, captured=True)
    client = api_client(scopes=["embed"], embed=PINS, checkout_session_id=str(session_id))

    response = _get(client, txn)

    assert response.status_code == 200
    assert (response.json()["id"], response.json()["status"]) == (str(txn.pk), "capture_succeeded")


def test_the_pinned_buyers_transaction_is_read(api_client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    txn = TransactionFactory(merchant_account=merchant_account, buyer=buyer, captured=True)
    client = api_client(scopes=["embed"], embed={**PINS, "buyer_id": str(buyer.pk)})

    assert _get(client, txn).status_code == 200


@pytest.mark.parametrize(
    ("transaction", "claims"),
    [
        ({"checkout_session_id": "other"}, {"checkout_session_id": "session"}),
        ({"checkout_session_id": "session", "amount": 1300}, {"checkout_session_id": "session"}),
        ({"checkout_session_id": "session", "currency": "EUR"}, {"checkout_session_id": "session"}),
        ({"checkout_session_id": None}, {"checkout_session_id": "session"}),
        ({"checkout_session_id": "session"}, {}),
        ({"buyer": "other"}, {"buyer": "pinned"}),
        ({"buyer": None}, {"buyer": "pinned"}),
    ],
    ids=[
        "another session",
        "another amount",
        "another currency",
        "no session",
        "a token pinning no session nor buyer",
        "another buyer",
        "no buyer",
    ],
)
def test_any_other_transaction_is_not_found(api_client, merchant_account, transaction, claims):
    sessions = {"session": uuid.uuid4(), "other": uuid.uuid4(), None: None}
    buyers = {"pinned": BuyerFactory(merchant_account=merchant_account), "other": BuyerFactory(), None: None}
    fields = {
        name: sessions[value] if name == "checkout_session_id" else buyers[value] if name == "buyer" else value
        for name, value in transaction.items()
    }
    txn = TransactionFactory(merchant_account=merchant_account, captured=True, **fields)
    token_claims = {}
    if "checkout_session_id" in claims:
        token_claims["checkout_session_id"] = str(sessions[claims["checkout_session_id"]])
    embed = dict(PINS)
    if "buyer" in claims:
        embed["buyer_id"] = str(buyers[claims["buyer"]].pk)
    client = api_client(scopes=["embed"], embed=embed, **token_claims)

    assert_error(_get(client, txn), 404)


def test_a_server_token_reads_every_transaction_of_the_account(api_client, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, checkout_session_id=uuid.uuid4(), amount=1)

    assert _get(api_client(scopes=["transactions.read"]), txn).status_code == 200


def test_embed_reads_are_rate_limited_per_token(api_client, merchant_account, settings):
    settings.RATELIMIT_EMBED = "2/m"
    caches["ratelimit"].clear()
    session_id = uuid.uuid4()
    txn = TransactionFactory(merchant_account=merchant_account, checkout_session_id=session_id)
    embed = api_client(scopes=["embed"], embed=PINS, checkout_session_id=str(session_id))
    server = api_client(scopes=["transactions.read"])

    assert [_get(embed, txn).status_code for _ in range(3)] == [200, 200, 429]
    assert all(_get(server, txn).status_code == 200 for _ in range(3))  # server tokens are never limited


def test_a_paypal_payment_made_in_a_checkout_is_read_by_that_checkouts_token_alone(
    api_client, merchant_account, paypal_api
):
    """The drop-in that sent the buyer to PayPal reads the payment when they are back: it keeps the token's session
    (never one the body names); another checkout's token finds nothing."""
    for pattern, example in GUIDE_ANSWERS.items():
        paypal_api.answer(pattern, example=example)
    PaymentServiceFactory(
        merchant_account=merchant_account, paypal=True, accepted_currencies=["USD"], accepted_countries=["US"]
    )
    session_id = uuid.uuid4()
    client = api_client(scopes=["embed"], embed=PINS, checkout_session_id=str(session_id))
    body = {
        **PINS,
        "intent": "authorize",
        "payment_method": {"method": "paypal", "redirect_url": "https://shop.example/pay", "currency": "USD"},
    }

    created = client.post("/transactions", body, format="json")

    assert created.status_code == 201, created.json()
    assert created.json()["status"] == "buyer_approval_pending"
    txn = Transaction.objects.get(pk=created.json()["id"])
    assert txn.checkout_session_id == session_id
    assert _get(client, txn).status_code == 200
    other = api_client(scopes=["embed"], embed=PINS, checkout_session_id=str(uuid.uuid4()))
    assert _get(other, txn).status_code == 404
