"""`POST /gift-cards/activations` (docs/gift-cards.md, "Activating pre-printed cards"): a card issued inactive
becomes active, loaded when asked, stored when asked; the PIN is checked as every check is; bad input and every
refusal writes nothing."""

import pytest

from buyers.tests.factories import BuyerFactory
from giftcards.models import GiftCard, IssuedGiftCard, LedgerEntry
from giftcards.services import (
    ACTIVATION_REFERENCE,
    Activation,
    issued_card_activate,
    issued_card_deactivate,
    issued_cards_create_batch,
)
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.audit.models import AuditLogEntry
from payments.tests.assertions import assert_error
from payments.tests.races import at_once
from payments.validators import MAX_AMOUNT

pytestmark = pytest.mark.django_db

INVALID_CARD = "The gift card number or PIN is not valid."


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["gift-cards.write"])


@pytest.fixture
def card(merchant_account):
    return IssuedGiftCardFactory(amount=1000, currency="USD", preprinted=True)


def activate(client, body, **headers):
    return client.post("/gift-cards/activations", body, format="json", **headers)


def state(card) -> tuple[str, int, bool, list]:
    card.refresh_from_db()
    ledger = list(card.ledger.order_by("created_at").values_list("amount", "reference"))
    return card.status, card.balance, card.awaiting_activation, ledger


def test_activation_makes_the_card_active_and_answers_it(client, card):
    response = activate(client, {"number": card.number, "pin": card.pin})

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["type"] == "gift-card"
    assert body["id"] == str(card.id)  # nothing stored: the program's card, by its own id
    assert (body["bin"], body["last4"], body["buyer"]) == (card.number[:6], card.number[-4:], None)
    assert state(card) == ("active", 1000, False, [(1000, "issue")])
    assert not GiftCard.objects.exists()


def test_amount_and_currency_load_the_card_in_its_ledger(client, card):
    assert activate(client, {"number": card.number, "pin": card.pin, "amount": 2500, "currency": "USD"}).status_code
    assert state(card) == ("active", 3500, False, [(1000, "issue"), (2500, ACTIVATION_REFERENCE)])
    assert card.ledger.get(reference=ACTIVATION_REFERENCE).kind == LedgerEntry.Kind.ISSUE


def test_a_zero_amount_activates_and_moves_no_money(client, card):
    assert activate(client, {"number": card.number, "pin": card.pin, "amount": 0, "currency": "USD"}).status_code == 201
    assert state(card) == ("active", 1000, False, [(1000, "issue")])


def test_store_keeps_the_card_for_the_named_buyer(client, card):
    buyer = BuyerFactory(external_identifier="shopper-1")

    response = activate(
        client, {"number": card.number, "pin": card.pin, "store": True, "buyer_external_identifier": "shopper-1"}
    )

    assert response.status_code == 201, response.content
    stored = GiftCard.objects.get()
    assert response.json()["id"] == str(stored.id)
    assert response.json()["buyer"]["id"] == str(buyer.id)
    assert (stored.buyer, stored.issued_card_id) == (buyer, card.id)


def test_the_command_issues_pre_printed_cards_that_activate(client, merchant_account):
    secret = issued_cards_create_batch(
        merchant_account=merchant_account, count=1, amount=500, currency="USD", status=IssuedGiftCard.Status.INACTIVE
    )[0]
    assert (secret.card.status, secret.card.awaiting_activation) == ("inactive", True)

    assert activate(client, {"number": secret.number, "pin": secret.pin}).status_code == 201
    assert state(secret.card)[:3] == ("active", 500, False)


# --- refusals -------------------------------------------------------------------------------------


def test_a_wrong_pin_is_the_same_answer_as_an_unknown_number_and_counts(client, card):
    wrong_pin = activate(client, {"number": card.number, "pin": "0"})
    unknown = activate(client, {"number": "6035719999999999999", "pin": card.pin})

    assert wrong_pin.json() == unknown.json()
    assert assert_error(wrong_pin, 400, "/")["details"][0]["message"] == INVALID_CARD
    assert state(card)[:3] == ("inactive", 1000, True)


def test_a_locked_card_is_not_activated_even_with_its_pin(client, card, settings):
    settings.RATELIMIT_GIFTCARD_PIN_FAILURES = "2/h"
    for _ in range(2):
        activate(client, {"number": card.number, "pin": "0"})

    assert_error(activate(client, {"number": card.number, "pin": card.pin}), 400, "/")
    assert state(card)[:3] == ("inactive", 1000, True)


def test_an_active_card_is_a_conflict(client, merchant_account):
    active = IssuedGiftCardFactory()
    assert_error(activate(client, {"number": active.number, "pin": active.pin}), 409, "/number")


def test_a_card_staff_deactivated_stays_inactive(client, card):
    issued_card_deactivate(card=card)

    body = assert_error(activate(client, {"number": card.number, "pin": card.pin}), 400, "/number")
    assert body["details"][0]["type"] == "inactive_card"
    assert state(card)[:3] == ("inactive", 1000, False)


def test_an_expired_card_is_refused(client, merchant_account):
    expired = IssuedGiftCardFactory(preprinted=True, expired=True)
    body = assert_error(activate(client, {"number": expired.number, "pin": expired.pin}), 400)
    assert body["details"][0]["type"] == "expired_card"


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"currency": "EUR", "amount": 100}, "/currency"),
        ({"amount": MAX_AMOUNT, "currency": "USD"}, "/amount"),
        ({"amount": 100}, "/currency"),
        ({"currency": "USD"}, "/amount"),
        ({"pin": None}, "/pin"),
        ({"pin": "absent"}, "/pin"),
        ({"amount": -1, "currency": "USD"}, "/amount"),
        ({"number": "12"}, "/number"),
        ({"store": "yes please"}, "/store"),
        ({"buyer_id": "00000000-0000-4000-8000-00000000dead"}, "/buyer_id"),
        ({"store": True, "buyer_id": "00000000-0000-4000-8000-00000000dead"}, "/buyer_id"),
        ({"store": True, "buyer_id": "00000000-0000-4000-8000-00000000dead", "buyer_external_identifier": "b"}, None),
        ({"external_identifier": ""}, "/external_identifier"),
        ({"theme": "birthday"}, "/theme"),
    ],
    ids=[
        "another-currency",
        "over-the-largest-balance",
        "amount-without-currency",
        "currency-without-amount",
        "null-pin",
        "no-pin",
        "negative-amount",
        "short-number",
        "store-not-a-boolean",
        "buyer-without-store",
        "unknown-buyer",
        "both-buyer-fields",
        "empty-external-identifier",
        "unknown-field",
    ],
)
def test_bad_input_is_a_4xx_and_writes_nothing(client, card, change, pointer):
    body = {"number": card.number, "pin": card.pin, **change}
    if body["pin"] == "absent":
        del body["pin"]

    assert_error(activate(client, body), 400, pointer)
    assert state(card) == ("inactive", 1000, True, [(1000, "issue")])
    assert not GiftCard.objects.exists()


# --- scopes, embed tokens, idempotency and audit --------------------------------------------------


def test_a_read_scope_cannot_activate(api_client, merchant_account, card):
    assert_error(activate(api_client(scopes=["gift-cards.read"]), {"number": card.number, "pin": card.pin}), 403)
    assert state(card)[0] == "inactive"


def test_an_embed_token_activates_and_stores_for_its_buyer_but_loads_no_money(api_client, card):
    buyer = BuyerFactory()
    embed = api_client(scopes=["embed"], embed={"amount": 100, "currency": "USD", "buyer_id": str(buyer.id)})

    loading = {"number": card.number, "pin": card.pin, "amount": 100, "currency": "USD"}
    assert_error(activate(embed, loading), 403)
    assert state(card)[:2] == ("inactive", 1000)

    response = activate(embed, {"number": card.number, "pin": card.pin, "store": True, "buyer_id": str(buyer.id)})
    assert response.status_code == 201, response.content
    assert GiftCard.objects.get().buyer == buyer


def test_an_embed_token_cannot_store_for_another_buyer(api_client, card):
    pinned, other = BuyerFactory(), BuyerFactory()
    embed = api_client(scopes=["embed"], embed={"amount": 100, "currency": "USD", "buyer_id": str(pinned.id)})

    response = activate(embed, {"number": card.number, "pin": card.pin, "store": True, "buyer_id": str(other.id)})

    assert_error(response, 403)
    assert state(card)[0] == "inactive"


def test_an_idempotency_key_replays_without_a_second_load(client, card):
    body = {"number": card.number, "pin": card.pin, "amount": 500, "currency": "USD"}
    first = activate(client, body, HTTP_IDEMPOTENCY_KEY="activate-1")
    again = activate(client, body, HTTP_IDEMPOTENCY_KEY="activate-1")

    assert (first.status_code, again.status_code, again["Idempotent-Replayed"]) == (201, 201, "true")
    assert again.json() == first.json()
    assert state(card)[1] == 1500


def test_the_audit_log_records_the_activation(client, card):
    activate(client, {"number": card.number, "pin": card.pin})

    entry = AuditLogEntry.objects.get()
    assert (entry.action, entry.resource_type, entry.resource_id) == ("updated", "issued-gift-card", str(card.id))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_activations_load_the_card_once(merchant_account):
    card = IssuedGiftCardFactory(amount=1000, currency="USD", preprinted=True)

    results = at_once(
        [
            lambda: issued_card_activate(
                merchant_account=merchant_account, number=card.number, pin=card.pin, amount=500, currency="USD"
            )
        ]
        * 10,
        refusals=True,
    )

    assert sum(isinstance(result, Activation) for result in results) == 1
    assert all(type(result).__name__ == "Conflict" for result in results if not isinstance(result, Activation))
    assert state(card)[:2] == ("active", 1500)


def test_an_embed_token_is_refused_past_its_budget_and_the_refusal_checks_nothing(api_client, card, settings):
    settings.RATELIMIT_EMBED = "2/d"
    embed = api_client(scopes=["embed"], embed={"amount": 100, "currency": "USD"})

    answers = [activate(embed, {"number": card.number, "pin": "0"}).status_code for _ in range(2)]
    refused = activate(embed, {"number": card.number, "pin": card.pin})

    assert answers == [400, 400]
    assert_error(refused, 429)
    assert state(card)[0] == "inactive"  # the right PIN, refused before any check
