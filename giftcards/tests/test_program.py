"""The gift card program's services: issuing, checking, redeeming, refunding and deactivating."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from giftcards import providers, services
from giftcards.errors import (
    GiftCardExpired,
    GiftCardInactive,
    IncorrectCurrency,
    InsufficientFunds,
    InvalidAmount,
    InvalidGiftCard,
)
from giftcards.hashing import number_hash
from giftcards.models import GiftCard, IssuedGiftCard, LedgerEntry
from giftcards.selectors import issued_card_display, issued_card_for_payment
from giftcards.services import (
    issued_card_check,
    issued_card_create,
    issued_card_deactivate,
    issued_card_redeem,
    issued_card_refund,
    issued_cards_create_batch,
)
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory
from payments.errors import DomainError, DuplicateRecord
from payments.vault.cards import luhn_valid

pytestmark = pytest.mark.django_db


def ledger_sum(card: IssuedGiftCard) -> int:
    return sum(card.ledger.values_list("amount", flat=True))


# --- issuing -------------------------------------------------------------------------------------------


def test_issue_records_the_amount_in_the_ledger(merchant_account):
    issued = issued_card_create(merchant_account=merchant_account, amount=2500, currency="EUR")

    card = IssuedGiftCard.objects.get(pk=issued.card.pk)
    assert (card.balance, card.currency, card.status) == (2500, "EUR", "active")
    assert list(card.ledger.values_list("kind", "amount", "balance_after")) == [("issue", 2500, 2500)]
    assert card.service.merchant_account == merchant_account
    assert card.service.provider == "mock-gift-card"


def test_issued_numbers_are_19_luhn_valid_digits_under_the_program_bin(merchant_account):
    issued = issued_card_create(merchant_account=merchant_account, amount=100, currency="USD")

    assert len(issued.number) == 19
    assert issued.number.startswith(services.ISSUER_BIN)
    assert luhn_valid(issued.number)
    assert issued.pin.isdigit()
    assert len(issued.pin) == 8
    card = issued.card
    assert (card.bin, card.sub_bin, card.last4) == (issued.number[:6], issued.number[6:9], issued.number[-4:])
    assert card.number_hash == number_hash(issued.number)


def test_a_number_can_only_be_issued_once_per_account(merchant_account, other_merchant_account):
    number = "6035710000000000001"
    issued_card_create(merchant_account=merchant_account, amount=100, currency="USD", number=number, pin="1")

    with pytest.raises(DuplicateRecord):
        issued_card_create(merchant_account=merchant_account, amount=100, currency="USD", number=number, pin="2")
    # Another account runs its own program.
    issued_card_create(merchant_account=other_merchant_account, amount=100, currency="USD", number=number, pin="3")
    assert IssuedGiftCard.objects.count() == 2


@pytest.mark.parametrize(
    ("terms", "pointer"),
    [
        ({"amount": 0}, "/amount"),
        ({"amount": -5}, "/amount"),
        ({"amount": True}, "/amount"),
        ({"amount": 100_000_000}, "/amount"),
        ({"currency": "usd"}, "/currency"),
        ({"currency": "ABC"}, "/currency"),
        ({"expires_at": timezone.now() - timedelta(seconds=1)}, "/expires_at"),
        ({"number": "123456789012345"}, "/number"),
        ({"number": "12345678901234567890"}, "/number"),
        ({"number": "60357100000000000a1"}, "/number"),
        ({"pin": ""}, "/pin"),
        ({"pin": "1" * 65}, "/pin"),
    ],
    ids=[
        "zero-amount",
        "negative-amount",
        "bool-amount",
        "amount-too-large",
        "lower-case-currency",
        "unknown-currency",
        "expired",
        "short-number",
        "long-number",
        "non-digit-number",
        "empty-pin",
        "long-pin",
    ],
)
def test_issue_refuses_bad_terms_and_writes_nothing(merchant_account, terms, pointer):
    arguments = {"merchant_account": merchant_account, "amount": 100, "currency": "USD", **terms}

    with pytest.raises(DomainError) as raised:
        issued_card_create(**arguments)

    assert raised.value.details[0]["pointer"] == pointer
    assert not IssuedGiftCard.objects.exists()
    assert not LedgerEntry.objects.exists()


def test_batch_issues_distinct_cards_with_bulk_inserts(merchant_account):
    with CaptureQueriesContext(connection) as queries:
        issued = issued_cards_create_batch(merchant_account=merchant_account, count=2500, amount=1000, currency="GBP")

    # Inserts are batched (how many rows fit in one depends on the database), never one per card.
    assert len(queries) < 2500 / 20

    assert len({secret.number for secret in issued}) == 2500
    assert IssuedGiftCard.objects.filter(balance=1000, currency="GBP").count() == 2500
    assert LedgerEntry.objects.filter(kind="issue", amount=1000).count() == 2500


def test_batch_never_reuses_a_number_already_issued(merchant_account, monkeypatch):
    existing = issued_card_create(merchant_account=merchant_account, amount=100, currency="USD")
    fresh = "6035710000000000019"
    # The generator first repeats the existing number, then yields a new one: only the new one is used.
    numbers = iter([existing.number, fresh])
    monkeypatch.setattr(services, "_new_number", lambda: next(numbers))

    issued = issued_cards_create_batch(merchant_account=merchant_account, count=1, amount=100, currency="USD")

    assert [secret.number for secret in issued] == [fresh]


@pytest.mark.parametrize("count", [0, -1])
def test_batch_refuses_a_count_below_one(merchant_account, count):
    with pytest.raises(DomainError):
        issued_cards_create_batch(merchant_account=merchant_account, count=count, amount=100, currency="USD")


# --- checking --------------------------------------------------------------------------------------------


def test_check_finds_the_card_by_number_and_pin(merchant_account):
    card = IssuedGiftCardFactory()

    assert issued_card_check(merchant_account=merchant_account, number=card.number, pin=card.pin) == card


@pytest.mark.parametrize("wrong", ["number", "pin", "account"])
def test_check_failures_are_one_and_the_same_error(merchant_account, other_merchant_account, wrong):
    card = IssuedGiftCardFactory()
    number = card.number[:-1] + str((int(card.number[-1]) + 1) % 10) if wrong == "number" else card.number
    pin = card.pin + "0" if wrong == "pin" else card.pin
    account = other_merchant_account if wrong == "account" else merchant_account

    with pytest.raises(InvalidGiftCard) as raised:
        issued_card_check(merchant_account=account, number=number, pin=pin)

    assert raised.value.message == "The gift card number or PIN is not valid."
    assert raised.value.error_code == "invalid_gift_card"


@pytest.fixture
def check_spies(monkeypatch):
    """Counts PIN comparisons and the limiter calls the check makes."""
    calls = {"pin_matches": 0, "failures": []}
    real_pin_matches = providers.pin_matches

    def pin_matches(*args):
        calls["pin_matches"] += 1
        return real_pin_matches(*args)

    def failed(subject, **details):
        calls["failures"].append((subject, details))

    monkeypatch.setattr(providers, "pin_matches", pin_matches)
    monkeypatch.setattr(services.lockout, "record_pin_failure", failed)
    return calls


@pytest.mark.parametrize("wrong", ["number", "pin"])
def test_unknown_number_and_wrong_pin_do_the_same_work(merchant_account, check_spies, wrong):
    card = IssuedGiftCardFactory()
    number = "6035719999999999999" if wrong == "number" else card.number
    pin = "00000000" if wrong == "pin" else card.pin

    with pytest.raises(InvalidGiftCard):
        issued_card_check(merchant_account=merchant_account, number=number, pin=pin, endpoint="POST /gift-cards")

    assert check_spies["pin_matches"] == 1
    assert check_spies["failures"] == [
        (
            number_hash(number),
            {"merchant_account_id": "default", "last4": number[-4:], "endpoint": "POST /gift-cards"},
        )
    ]


def test_a_matching_check_records_no_failure(merchant_account, check_spies):
    card = IssuedGiftCardFactory()

    issued_card_check(merchant_account=merchant_account, number=card.number, pin=card.pin)

    assert check_spies["failures"] == []


def test_a_locked_card_answers_like_a_wrong_pin_even_with_the_right_one(merchant_account):
    card = IssuedGiftCardFactory()
    IssuedGiftCard.objects.filter(pk=card.pk).update(locked_until=timezone.now() + timedelta(minutes=5))

    with pytest.raises(InvalidGiftCard) as raised:
        issued_card_check(merchant_account=merchant_account, number=card.number, pin=card.pin)

    assert raised.value.message == "The gift card number or PIN is not valid."


def test_a_lock_ends_with_its_window(merchant_account):
    card = IssuedGiftCardFactory()
    IssuedGiftCard.objects.filter(pk=card.pk).update(locked_until=timezone.now() - timedelta(seconds=1))

    assert issued_card_check(merchant_account=merchant_account, number=card.number, pin=card.pin) == card


def test_failed_checks_lock_the_number_after_the_configured_budget(merchant_account, settings):
    settings.RATELIMIT_GIFTCARD_PIN_FAILURES = "3/h"
    card = IssuedGiftCardFactory()
    for _ in range(3):
        with pytest.raises(InvalidGiftCard):
            issued_card_check(merchant_account=merchant_account, number=card.number, pin="wrong")

    with pytest.raises(InvalidGiftCard):
        issued_card_check(merchant_account=merchant_account, number=card.number, pin=card.pin)
    assert IssuedGiftCard.objects.get(pk=card.pk).is_locked()


def test_check_says_nothing_about_state(merchant_account):
    card = IssuedGiftCardFactory(expired=True, status="inactive")

    assert issued_card_check(merchant_account=merchant_account, number=card.number, pin=card.pin) == card


# --- redeeming and refunding ---------------------------------------------------------------------------


def test_redeem_debits_and_records_the_movement():
    card = IssuedGiftCardFactory(amount=5000)

    entry = issued_card_redeem(card=card, amount=1200, reference="tx-1")

    card.refresh_from_db()
    assert card.balance == 3800
    assert (entry.kind, entry.amount, entry.balance_after, entry.reference) == ("redemption", -1200, 3800, "tx-1")
    assert ledger_sum(card) == card.balance


def test_redeem_of_the_whole_balance_leaves_zero():
    card = IssuedGiftCardFactory(amount=5000)

    issued_card_redeem(card=card, amount=5000, reference="tx-1")

    card.refresh_from_db()
    assert card.balance == 0


@pytest.mark.parametrize(
    ("card_kwargs", "redeem_kwargs", "error"),
    [
        ({"amount": 1000}, {"amount": 1001}, InsufficientFunds),
        ({"status": "inactive"}, {"amount": 1}, GiftCardInactive),
        ({"expired": True}, {"amount": 1}, GiftCardExpired),
        ({}, {"amount": 0}, InvalidAmount),
        ({}, {"amount": -1}, InvalidAmount),
        ({}, {"amount": True}, InvalidAmount),
        ({"currency": "USD"}, {"amount": 1, "currency": "EUR"}, IncorrectCurrency),
    ],
    ids=["over-balance", "inactive", "expired", "zero", "negative", "bool", "currency"],
)
def test_redeem_refusals_change_nothing(card_kwargs, redeem_kwargs, error):
    card = IssuedGiftCardFactory(**card_kwargs)
    before = card.balance

    with pytest.raises(error) as raised:
        issued_card_redeem(card=card, reference="tx-1", **redeem_kwargs)

    assert raised.value.status == 400
    card.refresh_from_db()
    assert card.balance == before
    assert list(card.ledger.values_list("kind", flat=True)) == ["issue"]


def test_redeem_uses_the_locked_balance_not_the_callers_copy():
    card = IssuedGiftCardFactory(amount=1000)
    stale = IssuedGiftCard.objects.get(pk=card.pk)
    issued_card_redeem(card=card, amount=800, reference="tx-1")

    with pytest.raises(InsufficientFunds):
        issued_card_redeem(card=stale, amount=800, reference="tx-2")


def test_redeem_counts_a_use_of_the_stored_cards():
    stored = GiftCardFactory()

    issued_card_redeem(card=stored.issued_card, amount=10, reference="tx-1")
    issued_card_redeem(card=stored.issued_card, amount=10, reference="tx-2")

    stored.refresh_from_db()
    assert stored.usage_count == 2
    assert stored.last_used_at is not None


@pytest.mark.parametrize("reference", ["", "issue", "x" * 256, None])
def test_redeem_needs_a_reference(reference):
    card = IssuedGiftCardFactory()

    with pytest.raises(ValueError, match="reference"):
        issued_card_redeem(card=card, amount=1, reference=reference)


def test_refund_credits_back_up_to_what_was_redeemed_under_the_reference():
    card = IssuedGiftCardFactory(amount=5000)
    issued_card_redeem(card=card, amount=1000, reference="tx-1")
    issued_card_redeem(card=card, amount=500, reference="tx-1")

    issued_card_refund(card=card, amount=900, reference="tx-1")
    issued_card_refund(card=card, amount=600, reference="tx-1")
    with pytest.raises(InvalidAmount):
        issued_card_refund(card=card, amount=1, reference="tx-1")

    card.refresh_from_db()
    assert card.balance == 5000
    assert ledger_sum(card) == 5000


def test_refund_cannot_use_another_references_redemptions():
    card = IssuedGiftCardFactory(amount=5000)
    issued_card_redeem(card=card, amount=1000, reference="tx-1")

    with pytest.raises(InvalidAmount):
        issued_card_refund(card=card, amount=1, reference="tx-2")
    with pytest.raises(InvalidAmount):
        issued_card_refund(card=card, amount=1001, reference="tx-1")


def test_refund_works_on_inactive_and_expired_cards():
    card = IssuedGiftCardFactory(amount=5000)
    issued_card_redeem(card=card, amount=1000, reference="tx-1")
    IssuedGiftCard.objects.filter(pk=card.pk).update(status="inactive", expires_at=timezone.now() - timedelta(days=1))

    issued_card_refund(card=card, amount=1000, reference="tx-1")

    card.refresh_from_db()
    assert card.balance == 5000


def test_deactivate_keeps_the_money_and_is_idempotent():
    card = IssuedGiftCardFactory(amount=5000)

    issued_card_deactivate(card=card)
    card = issued_card_deactivate(card=card)

    assert card.status == "inactive"
    assert card.balance == 5000
    with pytest.raises(GiftCardInactive):
        issued_card_redeem(card=card, amount=1, reference="tx-1")


# --- lookups for the transactions app ---------------------------------------------------------------------


def test_issued_card_for_payment_by_number_and_pin(merchant_account):
    card = IssuedGiftCardFactory()

    assert issued_card_for_payment(merchant_account=merchant_account, number=card.number, pin=card.pin) == card


def test_issued_card_for_payment_by_stored_id(merchant_account):
    stored = GiftCardFactory()

    assert issued_card_for_payment(merchant_account=merchant_account, gift_card_id=stored.id) == stored.issued_card


def test_issued_card_for_payment_failures_point_into_the_callers_body(merchant_account, other_merchant_account):
    card = IssuedGiftCardFactory()
    foreign = GiftCardFactory(merchant_account=other_merchant_account)

    with pytest.raises(InvalidGiftCard) as wrong_pin:
        issued_card_for_payment(merchant_account=merchant_account, number=card.number, pin="x", pointer="/gift_cards/1")
    with pytest.raises(DomainError) as foreign_id:
        issued_card_for_payment(merchant_account=merchant_account, gift_card_id=foreign.id, pointer="/gift_cards/0")

    assert wrong_pin.value.details[0]["pointer"] == "/gift_cards/1"
    assert foreign_id.value.status == 400
    assert foreign_id.value.details[0]["pointer"] == "/gift_cards/0/id"


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"number": "6035710000000000001"}, {"gift_card_id": "x", "number": "6035710000000000001", "pin": "1"}],
    ids=["nothing", "number-without-pin", "both"],
)
def test_issued_card_for_payment_needs_one_way_of_naming_the_card(merchant_account, kwargs):
    with pytest.raises(ValueError, match="either"):
        issued_card_for_payment(merchant_account=merchant_account, **kwargs)


def test_gift_card_display_is_the_transaction_gift_card_shape():
    stored = GiftCardFactory()
    card = stored.issued_card

    assert issued_card_display(card=card) == {
        "type": "gift-card",
        "id": None,
        "bin": card.bin,
        "sub_bin": card.sub_bin,
        "last4": card.last4,
    }
    assert issued_card_display(card=card, gift_card_id=stored.id)["id"] == str(stored.id)


def test_stored_cards_of_one_buyer_are_not_duplicated(merchant_account):
    stored = GiftCardFactory()
    card = stored.issued_card

    again = services.gift_card_store(
        merchant_account=merchant_account, number=card.number, pin=card.pin, buyer_id=stored.buyer_id
    )

    assert again.id == stored.id
    assert GiftCard.objects.count() == 1
