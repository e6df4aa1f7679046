"""Paying with the card Secure Fields stored on a checkout session, and what embed tokens may create."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from checkout.tests.factories import CheckoutSessionFactory
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.vault.models import VaultedCard
from transactions.models import Transaction
from transactions.tests.conftest import CARD
from transactions.tests.test_api import SDK_DEFAULTS, assert_error, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def with_session(session_id, amount: int = 1299, **fields) -> dict:
    method = {"method": "checkout-session", "id": str(session_id)}
    return {"amount": amount, "currency": "USD", "payment_method": method, **SDK_DEFAULTS, **fields}


def test_the_sessions_card_pays_and_its_security_code_is_gone_after_the_first_attempt(client, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)

    first = post(client, "/transactions", with_session(session.pk))
    second = post(client, "/transactions", with_session(session.pk))

    assert first.status_code == second.status_code == 201
    payload = first.json()
    assert (payload["status"], payload["checkout_session_id"], payload["cvv_response_code"]) == (
        "authorization_succeeded",
        str(session.pk),
        "match",
    )
    assert (payload["payment_method"]["label"], payload["payment_method"]["details"]["bin"]) == ("1111", "411111")
    card = VaultedCard.objects.get(pk=session.card_id)
    assert (card.encrypted_security_code, card.security_code_expires_at) == (None, None)
    assert second.json()["cvv_response_code"] == "not_provided"
    assert set(Transaction.objects.values_list("vaulted_card_id", flat=True)) == {card.pk}


def test_a_declined_session_card_is_reported(client, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True, card__number="4000000000000002")

    response = post(client, "/transactions", with_session(session.pk))

    assert (response.status_code, response.json()["status"]) == (201, "authorization_declined")


def test_a_session_without_card_details_is_a_400(client, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account)

    body = assert_error(post(client, "/transactions", with_session(session.pk)), 400, "/payment_method/id")
    # Upstream's message, which clients match, with the reason after it and in the detail.
    assert body["message"] == "Request failed validation: The checkout session has no card details yet."
    assert body["details"][0]["message"] == "The checkout session has no card details yet."
    assert not Transaction.objects.exists()


@pytest.mark.parametrize("case", ["unknown", "expired", "other-account"])
def test_an_unknown_expired_or_foreign_session_is_a_404(client, merchant_account, other_merchant_account, case):
    session_id = uuid.uuid4()
    if case == "expired":
        session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)
        session.__class__.objects.filter(pk=session.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
        session_id = session.pk
    elif case == "other-account":
        session_id = CheckoutSessionFactory(merchant_account=other_merchant_account, with_card=True).pk

    assert_error(post(client, "/transactions", with_session(session_id)), 404)
    assert not Transaction.objects.exists()


# --- embed tokens ------------------------------------------------------------------------------------------

PINS = {"amount": 1299, "currency": "USD"}


def test_an_embed_token_creates_the_transaction_it_pins(api_client, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)
    client = api_client(scopes=["embed"], embed=PINS, checkout_session_id=str(session.pk))

    response = post(client, "/transactions", with_session(session.pk))

    assert response.status_code == 201, response.content


def test_a_session_pinned_token_pays_with_gift_cards_alone_when_they_cover_the_amount(api_client, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)
    first = IssuedGiftCardFactory(merchant_account=merchant_account, amount=1000)
    second = IssuedGiftCardFactory(merchant_account=merchant_account, amount=1000)
    client = api_client(scopes=["embed"], embed=PINS, checkout_session_id=str(session.pk))
    gift_cards = [
        {"number": first.number, "pin": first.pin, "amount": 1000},
        {"number": second.number, "pin": second.pin, "amount": 299},
    ]

    body = {"amount": 1299, "currency": "USD", "gift_cards": gift_cards, **SDK_DEFAULTS}  # no payment method at all

    response = post(client, "/transactions", body)

    assert response.status_code == 201, response.content
    payload = response.json()
    assert (payload["status"], payload["payment_method"], payload["checkout_session_id"]) == (
        "authorization_succeeded",
        None,
        None,
    )
    assert sorted(part["amount"] for part in payload["gift_card_redemptions"]) == [299, 1000]
    # The session's card was never used: its security code waits for a payment that needs it.
    assert VaultedCard.objects.get(pk=session.card_id).encrypted_security_code is not None


def _embed_cases(merchant_account):
    from buyers.tests.factories import BuyerFactory

    pinned_buyer = BuyerFactory(merchant_account=merchant_account, external_identifier="pinned")
    other_buyer = BuyerFactory(merchant_account=merchant_account, external_identifier="other")
    card_body = {"amount": 1299, "currency": "USD", "payment_method": CARD, **SDK_DEFAULTS}
    return {
        "no pins": ({}, None, card_body),
        "only amount pinned": ({"amount": 1299}, None, card_body),
        "other amount": (PINS, None, {**card_body, "amount": 1300}),
        "other currency": (PINS, None, {**card_body, "currency": "EUR"}),
        "other buyer id": (
            {**PINS, "buyer_id": str(pinned_buyer.pk)},
            None,
            {**card_body, "buyer_id": str(other_buyer.pk)},
        ),
        "buyer id left out": ({**PINS, "buyer_id": str(pinned_buyer.pk)}, None, card_body),
        "other buyer": (
            {**PINS, "buyer_external_identifier": "pinned"},
            None,
            {**card_body, "buyer_external_identifier": "other"},
        ),
        "card instead of the session": (PINS, "session", card_body),
        "another session": (PINS, "session", with_session(uuid.uuid4())),
        "a card beside gift cards": (PINS, "session", {**card_body, "gift_cards": [_gift_card(500)]}),
        "another session beside gift cards": (
            PINS,
            "session",
            with_session(uuid.uuid4(), gift_cards=[_gift_card(500)]),
        ),
        "another buyer's stored method beside gift cards": (
            PINS,
            "session",
            {**card_body, "payment_method": {"method": "id", "id": str(uuid.uuid4())}, "gift_cards": [_gift_card(500)]},
        ),
        "stored gift cards with no buyer pinned": (
            PINS,
            "session",
            {**card_body, "payment_method": None, "gift_cards": [{"id": str(uuid.uuid4()), "amount": 1299}]},
        ),
        "gift cards paying another amount": (
            PINS,
            "session",
            {**card_body, "amount": 500, "payment_method": None, "gift_cards": [_gift_card(500)]},
        ),
    }


def _gift_card(amount: int) -> dict:
    # The card's number and PIN are never looked at: the token is refused before any gift card is.
    return {"number": "6035710000000000000", "pin": "12345678", "amount": amount}


@pytest.mark.parametrize(
    "case",
    [
        "no pins",
        "only amount pinned",
        "other amount",
        "other currency",
        "other buyer id",
        "buyer id left out",
        "other buyer",
        "card instead of the session",
        "another session",
        "a card beside gift cards",
        "another session beside gift cards",
        "another buyer's stored method beside gift cards",
        "stored gift cards with no buyer pinned",
        "gift cards paying another amount",
    ],
)
def test_an_embed_token_cannot_create_anything_else(api_client, merchant_account, case):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)
    IssuedGiftCardFactory(merchant_account=merchant_account)
    pins, session_claim, payload = _embed_cases(merchant_account)[case]
    claims = {"embed": pins} if pins else {}
    if session_claim:
        claims["checkout_session_id"] = str(session.pk)
    client = api_client(scopes=["embed"], **claims)

    assert_error(post(client, "/transactions", payload), 403)
    assert not Transaction.objects.exists()
    assert VaultedCard.objects.get().encrypted_security_code is not None


def test_matching_pinned_buyer_is_allowed(api_client, merchant_account):
    from buyers.tests.factories import BuyerFactory

    buyer = BuyerFactory(merchant_account=merchant_account, external_identifier="pinned")
    client = api_client(scopes=["embed"], embed={**PINS, "buyer_external_identifier": "pinned"})

    response = post(
        client,
        "/transactions",
        {"amount": 1299, "currency": "USD", "payment_method": CARD, "buyer_external_identifier": "pinned"},
    )

    assert response.status_code == 201, response.content
    assert response.json()["buyer"]["id"] == str(buyer.pk)


def test_a_server_token_with_a_session_claim_may_only_use_that_session(api_client, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)
    client = api_client(scopes=["transactions.write"], checkout_session_id=str(session.pk))

    assert_error(post(client, "/transactions", {"amount": 5, "currency": "USD", "payment_method": CARD}), 403)
    assert post(client, "/transactions", with_session(session.pk, amount=5)).status_code == 201


def test_what_the_session_declared_applies_where_the_request_is_silent(client, merchant_account, connector):
    session = CheckoutSessionFactory(
        merchant_account=merchant_account,
        with_card=True,
        intent="capture",
        payment_source="recurring",
        country="GB",
        merchant_initiated=True,
        is_subsequent_payment=True,
        postal_code="N1 9GU",
    )

    silent = post(client, "/transactions", with_session(session.pk)).json()
    explicit = post(
        client, "/transactions", with_session(session.pk, intent="authorize", payment_source="moto", country="US")
    ).json()

    assert (silent["status"], silent["payment_source"], silent["country"]) == ("capture_succeeded", "recurring", "GB")
    assert (silent["merchant_initiated"], silent["is_subsequent_payment"]) == (True, True)
    assert (explicit["status"], explicit["payment_source"], explicit["country"]) == (
        "authorization_succeeded",
        "moto",
        "US",
    )
    requests = [call["request"] for name, call in connector.calls if name == "authorize"]
    assert [(request.capture, request.billing_postal_code) for request in requests] == [
        (True, "N1 9GU"),
        (False, "N1 9GU"),
    ]


def test_a_session_that_declared_nothing_leaves_the_defaults(client, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)

    payload = post(client, "/transactions", with_session(session.pk)).json()

    assert (payload["intent"], payload["payment_source"], payload["country"]) == ("authorize", "ecommerce", None)
    assert (payload["merchant_initiated"], payload["is_subsequent_payment"]) == (False, False)
