"""What the Embed drop-in does with a buyer's stored cards, as API calls: its token pins a checkout session and the
buyer, and it may pay with the session or with one of that buyer's cards only; its calls are rate limited."""

import pytest
from django.core.cache import caches

from checkout.tests.factories import CheckoutSessionFactory
from paymentmethods.models import PaymentMethod
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.tests.assertions import assert_error
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


@pytest.fixture
def mine(merchant_account):
    return PaymentMethodFactory(merchant_account=merchant_account)


def _drop_in(api_client, session, **buyer):
    """The token a merchant's server mints for the drop-in (the demo shop's, docs/frontend.md)."""
    return api_client(
        scopes=["embed"], embed={"amount": 1299, "currency": "USD", **buyer}, checkout_session_id=str(session.pk)
    )


def _pay(client, payment_method, **fields):
    body = {"amount": 1299, "currency": "USD", "intent": "capture", "payment_method": payment_method, **fields}
    return client.post("/transactions", body, format="json")


def test_a_session_token_pinned_to_the_buyer_pays_with_their_saved_card(api_client, merchant_account, mine):
    session = CheckoutSessionFactory(merchant_account=merchant_account)
    drop_in = _drop_in(api_client, session, buyer_id=str(mine.buyer_id))

    response = _pay(drop_in, {"method": "id", "id": str(mine.pk)}, buyer_id=str(mine.buyer_id))

    assert response.status_code == 201, response.content
    assert response.json()["payment_method"]["id"] == str(mine.pk)


def test_it_cannot_pay_with_another_buyers_card(api_client, merchant_account, mine):
    theirs = PaymentMethodFactory(merchant_account=merchant_account)
    drop_in = _drop_in(
        api_client, CheckoutSessionFactory(merchant_account=merchant_account), buyer_id=str(mine.buyer_id)
    )

    assert_error(_pay(drop_in, {"method": "id", "id": str(theirs.pk)}, buyer_id=str(mine.buyer_id)), 404)
    assert_error(_pay(drop_in, {"method": "id", "id": str(theirs.pk)}, buyer_id=str(theirs.buyer_id)), 403)
    assert not Transaction.objects.exists()


def test_a_session_token_without_a_buyer_pays_with_its_session_only(api_client, merchant_account, mine):
    session = CheckoutSessionFactory(merchant_account=merchant_account)
    drop_in = _drop_in(api_client, session)

    assert_error(_pay(drop_in, {"method": "id", "id": str(mine.pk)}, buyer_id=str(mine.buyer_id)), 403)
    assert_error(_pay(drop_in, {"method": "id", "id": str(mine.pk)}), 403)
    assert not Transaction.objects.exists()


def test_it_still_pays_only_with_its_own_session(api_client, merchant_account, mine):
    drop_in = _drop_in(
        api_client, CheckoutSessionFactory(merchant_account=merchant_account), buyer_id=str(mine.buyer_id)
    )
    other = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)

    response = _pay(drop_in, {"method": "checkout-session", "id": str(other.pk)}, buyer_id=str(mine.buyer_id))

    assert_error(response, 403)


def test_saving_the_sessions_card_for_the_pinned_buyer(api_client, merchant_account, mine):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)
    drop_in = _drop_in(api_client, session, buyer_id=str(mine.buyer_id))

    response = _pay(
        drop_in, {"method": "checkout-session", "id": str(session.pk)}, buyer_id=str(mine.buyer_id), store=True
    )

    assert response.status_code == 201, response.content
    assert PaymentMethod.objects.filter(buyer_id=mine.buyer_id).count() >= 1
    assert response.json()["payment_method"]["id"] is not None


@pytest.fixture
def two_a_minute(settings):
    settings.RATELIMIT_EMBED = "2/m"
    caches["ratelimit"].clear()


def test_listing_saved_cards_is_rate_limited_per_embed_token(api_client, merchant_account, mine, two_a_minute):
    drop_in = api_client(scopes=["embed"], embed={"amount": 1299, "currency": "USD", "buyer_id": str(mine.buyer_id)})
    server = api_client(scopes=["payment-methods.read"])

    statuses = [drop_in.get("/buyers/payment-methods").status_code for _ in range(3)]

    assert statuses == [200, 200, 429]
    assert all(
        server.get("/buyers/payment-methods", {"buyer_id": str(mine.buyer_id)}).status_code == 200 for _ in range(3)
    )


def test_deleting_a_saved_card_is_rate_limited_per_embed_token(api_client, merchant_account, two_a_minute):
    buyer_card = PaymentMethodFactory(merchant_account=merchant_account)
    more = [
        PaymentMethodFactory(merchant_account=merchant_account, buyer=buyer_card.buyer, number=n)
        for n in (
            "5555555555554444",
            "4012888888881881",
        )
    ]
    drop_in = api_client(scopes=["embed"], embed={"buyer_id": str(buyer_card.buyer_id)})

    statuses = [drop_in.delete(f"/payment-methods/{card.pk}").status_code for card in [buyer_card, *more]]

    assert statuses == [204, 204, 429]
    assert PaymentMethod.objects.filter(pk=more[-1].pk).exists()
