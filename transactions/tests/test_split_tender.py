"""Split tender: gift cards of the program pay part (or all) of a transaction, a card pays the rest."""

import pytest

from giftcards.models import IssuedGiftCard, LedgerEntry
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory
from payments.vault.models import VaultedCard
from transactions.models import GiftCardRedemption, Refund, Transaction
from transactions.tests.conftest import CARD
from transactions.tests.test_api import SDK_DEFAULTS, assert_error, post

pytestmark = pytest.mark.django_db

DECLINED = {**CARD, "number": "4000000000000002"}


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.fixture
def cards(merchant_account) -> list[IssuedGiftCard]:
    return [IssuedGiftCardFactory(merchant_account=merchant_account, amount=amount) for amount in (1000, 2000)]


def by_number(card: IssuedGiftCard, amount: int) -> dict:
    return {"number": card.number, "pin": card.pin, "amount": amount}


def pay(client, *, amount: int, gift_cards: list[dict], payment_method: dict | None = CARD, **fields):
    payload = {"amount": amount, "currency": "USD", "gift_cards": gift_cards, **SDK_DEFAULTS, **fields}
    if payment_method is not None:
        payload["payment_method"] = payment_method
    return post(client, "/transactions", payload)


def balances(cards: list[IssuedGiftCard]) -> list[int]:
    return [IssuedGiftCard.objects.get(pk=card.pk).balance for card in cards]


def test_gift_cards_pay_first_and_the_card_pays_the_rest(client, cards):
    response = pay(client, amount=3500, gift_cards=[by_number(cards[0], 1000), by_number(cards[1], 500)])

    assert response.status_code == 201, response.content
    payload = response.json()
    assert (payload["status"], payload["amount"], payload["authorized_amount"]) == (
        "authorization_succeeded",
        3500,
        2000,
    )
    assert (payload["multi_tender"], payload["method"]) == (True, "card")
    assert [
        (item["type"], item["status"], item["amount"], item["refunded_amount"], item["gift_card"]["last4"])
        for item in payload["gift_card_redemptions"]
    ] == [
        ("gift-card-redemption", "succeeded", 1000, 0, cards[0].number[-4:]),
        ("gift-card-redemption", "succeeded", 500, 0, cards[1].number[-4:]),
    ]
    assert payload["gift_card_redemptions"][0]["gift_card"] | {"last4": None} == {
        "type": "gift-card",
        "id": None,
        "bin": cards[0].bin,
        "sub_bin": cards[0].sub_bin,
        "last4": None,
    }
    assert balances(cards) == [0, 1500]
    for secret in (cards[0].number, cards[0].pin):
        assert secret not in response.content.decode()


def test_a_declined_card_gives_every_gift_card_its_money_back(client, cards):
    response = pay(
        client, amount=3500, gift_cards=[by_number(cards[0], 1000), by_number(cards[1], 500)], payment_method=DECLINED
    )

    assert response.status_code == 201
    payload = response.json()
    assert (payload["status"], payload["error_code"], payload["authorized_amount"]) == (
        "authorization_declined",
        "issuer_decline",
        0,
    )
    assert [
        (item["status"], item["refunded_amount"], item["error_code"]) for item in payload["gift_card_redemptions"]
    ] == [
        ("failed", 1000, "operation_canceled"),
        ("failed", 500, "operation_canceled"),
    ]
    assert balances(cards) == [1000, 2000]
    assert sorted(LedgerEntry.objects.filter(kind="refund").values_list("amount", flat=True)) == [500, 1000]


@pytest.mark.parametrize(
    ("intent", "status"), [("authorize", "authorization_succeeded"), ("capture", "capture_succeeded")]
)
def test_gift_cards_alone_pay_the_whole_amount(client, cards, intent, status):
    response = pay(
        client,
        amount=1500,
        gift_cards=[by_number(cards[0], 1000), by_number(cards[1], 500)],
        payment_method=None,
        intent=intent,
    )

    assert response.status_code == 201, response.content
    payload = response.json()
    assert (payload["status"], payload["method"], payload["payment_method"], payload["multi_tender"]) == (
        status,
        "gift-card",
        None,
        True,
    )
    assert (payload["authorized_amount"], payload["captured_amount"], payload["intent_outcome"]) == (0, 0, "succeeded")
    assert balances(cards) == [0, 1500]


def test_a_stored_gift_card_pays_by_id(client, merchant_account):
    stored = GiftCardFactory(merchant_account=merchant_account, issued_card__amount=800)

    response = pay(client, amount=800, gift_cards=[{"id": str(stored.pk), "amount": 800}], payment_method=None)

    assert response.status_code == 201, response.content
    assert response.json()["gift_card_redemptions"][0]["gift_card"]["id"] == str(stored.pk)
    assert IssuedGiftCard.objects.get(pk=stored.issued_card_id).balance == 0


REFUSED = [
    ("over-balance", lambda c: [by_number(c[0], 500), by_number(c[1], 2001)], 4000, CARD, "/gift_cards/1"),
    ("wrong-pin", lambda c: [{**by_number(c[0], 500), "pin": "00000000"}], 4000, CARD, "/gift_cards/0"),
    (
        "unknown-stored-id",
        lambda c: [{"id": "6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11", "amount": 5}],
        50,
        CARD,
        "/gift_cards/0/id",
    ),
    ("same-card-twice", lambda c: [by_number(c[0], 100), by_number(c[0], 100)], 4000, CARD, "/gift_cards/1"),
    ("more-than-amount", lambda c: [by_number(c[0], 600), by_number(c[1], 600)], 1000, CARD, "/gift_cards"),
    ("short-without-card", lambda c: [by_number(c[0], 600)], 1000, None, "/payment_method"),
    ("card-not-needed", lambda c: [by_number(c[0], 1000)], 1000, CARD, "/payment_method"),
]


@pytest.mark.parametrize(
    ("gift_cards", "amount", "payment_method", "pointer"),
    [row[1:] for row in REFUSED],
    ids=[row[0] for row in REFUSED],
)
def test_a_refused_gift_card_refuses_the_request_before_anything_moves(
    client, cards, gift_cards, amount, payment_method, pointer
):
    response = pay(client, amount=amount, gift_cards=gift_cards(cards), payment_method=payment_method)

    assert_error(response, 400, pointer)
    assert balances(cards) == [1000, 2000]
    assert not Transaction.objects.exists()
    assert not GiftCardRedemption.objects.exists()
    assert not VaultedCard.objects.exists()
    assert LedgerEntry.objects.exclude(kind="issue").count() == 0


def test_a_gift_card_in_another_currency_is_refused(client, merchant_account):
    euro = IssuedGiftCardFactory(merchant_account=merchant_account, amount=1000, currency="EUR")

    response = pay(client, amount=2000, gift_cards=[by_number(euro, 500)])

    assert assert_error(response, 400, "/gift_cards/0")["details"][0]["type"] == "incorrect_currency"
    assert IssuedGiftCard.objects.get(pk=euro.pk).balance == 1000


def test_another_accounts_gift_card_is_an_invalid_card(client, other_merchant_account, cards):
    theirs = IssuedGiftCardFactory(merchant_account=other_merchant_account, amount=1000)

    response = pay(client, amount=2000, gift_cards=[by_number(theirs, 500)])

    assert assert_error(response, 400, "/gift_cards/0")["details"][0]["type"] == "invalid_gift_card"
    assert IssuedGiftCard.objects.get(pk=theirs.pk).balance == 1000


# --- after the authorization -----------------------------------------------------------------------------


@pytest.fixture
def split(client, cards) -> dict:
    response = pay(client, amount=3500, gift_cards=[by_number(cards[0], 1000), by_number(cards[1], 500)])
    assert response.status_code == 201
    return response.json()


def test_void_gives_the_gift_cards_their_money_back(client, cards, split):
    response = client.post(f"/transactions/{split['id']}/void")

    assert response.json()["status"] == "authorization_voided"
    assert [(item["status"], item["refunded_amount"]) for item in response.json()["gift_card_redemptions"]] == [
        ("succeeded", 1000),
        ("succeeded", 500),
    ]
    assert balances(cards) == [1000, 2000]


def test_cancel_of_a_pending_split_returns_the_gift_card_money(client, cards, split):
    Transaction.objects.filter(pk=split["id"]).update(status="processing")

    response = client.post(f"/transactions/{split['id']}/cancel")

    assert response.json()["transaction"]["status"] == "authorization_voided"
    assert balances(cards) == [1000, 2000]


def test_capture_keeps_the_gift_card_money_and_refunds_credit_each_card(client, cards, split):
    captured = post(client, f"/transactions/{split['id']}/capture", {})
    redemption = split["gift_card_redemptions"][0]["id"]
    base = f"/transactions/{split['id']}/refunds"

    partial = post(client, base, {"target_type": "gift-card-redemption", "target_id": redemption, "amount": 400})
    too_much = post(client, base, {"target_type": "gift-card-redemption", "target_id": redemption, "amount": 601})

    assert captured.json()["captured_amount"] == 2000
    assert partial.status_code == 201
    assert (partial.json()["target_type"], partial.json()["target_id"], partial.json()["status"]) == (
        "gift-card-redemption",
        redemption,
        "succeeded",
    )
    assert_error(too_much, 400, "/amount")
    assert balances(cards) == [400, 1500]
    after = client.get(f"/transactions/{split['id']}").json()
    assert [item["refunded_amount"] for item in after["gift_card_redemptions"]] == [400, 0]
    assert after["refunded_amount"] == 0  # the transaction's amounts are the payment method's part


def test_refunds_all_refunds_the_card_and_every_gift_card(client, cards, split):
    post(client, f"/transactions/{split['id']}/capture", {})

    response = post(client, f"/transactions/{split['id']}/refunds/all", {})

    assert response.status_code == 201
    assert [(item["target_type"], item["amount"]) for item in response.json()["items"]] == [
        ("payment-method", 2000),
        ("gift-card-redemption", 1000),
        ("gift-card-redemption", 500),
    ]
    assert balances(cards) == [1000, 2000]
    assert Refund.objects.filter(status="succeeded").count() == 3
    assert_error(post(client, f"/transactions/{split['id']}/refunds/all", {}), 409)
