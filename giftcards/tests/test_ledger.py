"""The ledger: balance equals the sum of movements under any sequence of operations, never goes negative,
rows are append-only, and concurrent redemptions on PostgreSQL never overdraw a card."""

import pytest
from django.db import IntegrityError, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from giftcards.errors import GiftCardError
from giftcards.models import IssuedGiftCard, LedgerEntry
from giftcards.services import issued_card_create, issued_card_redeem, issued_card_refund
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.tests.races import at_once

pytestmark = pytest.mark.django_db

operations = st.lists(
    st.tuples(
        st.sampled_from(["redeem", "refund"]),
        st.integers(min_value=-10, max_value=6000),
        st.sampled_from(["tx-a", "tx-b", "tx-c"]),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(initial=st.integers(min_value=1, max_value=5000), steps=operations)
def test_balance_is_the_ledger_sum_and_never_negative(merchant_account, initial, steps):
    card = issued_card_create(merchant_account=merchant_account, amount=initial, currency="USD").card
    redeemed = {}  # what a correct program allows: the model the ledger is checked against
    expected = initial
    for operation, amount, reference in steps:
        allowed = amount >= 1 and (
            amount <= expected if operation == "redeem" else amount <= redeemed.get(reference, 0)
        )
        try:
            (issued_card_redeem if operation == "redeem" else issued_card_refund)(
                card=card, amount=amount, reference=reference
            )
        except GiftCardError:
            assert not allowed
            continue
        assert allowed
        sign = -1 if operation == "redeem" else 1
        expected += sign * amount
        redeemed[reference] = redeemed.get(reference, 0) - sign * amount

    card.refresh_from_db()
    entries = list(card.ledger.order_by("created_at", "id"))
    assert card.balance == expected == sum(entry.amount for entry in entries)
    running = 0
    for entry in entries:
        running += entry.amount
        assert entry.balance_after == running >= 0


def test_the_database_refuses_a_negative_card_balance():
    card = IssuedGiftCardFactory(amount=100)

    with pytest.raises(IntegrityError), transaction.atomic():
        IssuedGiftCard.objects.filter(pk=card.pk).update(balance=-1)


@pytest.mark.parametrize(
    ("kind", "amount", "balance_after"),
    [("redemption", -200, -100), ("redemption", 0, 100), ("redemption", 50, 150), ("refund", -50, 50)],
    ids=["negative-balance", "zero-amount", "positive-redemption", "negative-refund"],
)
def test_the_database_refuses_impossible_ledger_rows(kind, amount, balance_after):
    card = IssuedGiftCardFactory(amount=100)

    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerEntry.objects.create(card=card, kind=kind, amount=amount, balance_after=balance_after, reference="x")


def test_ledger_rows_cannot_be_changed_or_deleted():
    card = IssuedGiftCardFactory()
    entry = card.ledger.get()

    entry.reference = "rewritten"
    with pytest.raises(TypeError):
        entry.save()
    with pytest.raises(TypeError):
        entry.delete()
    with pytest.raises(TypeError):
        LedgerEntry.objects.filter(card=card).update(reference="rewritten")
    with pytest.raises(TypeError):
        LedgerEntry.objects.filter(card=card).delete()
    assert card.ledger.get().reference == "issue"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_redemptions_never_overdraw(merchant_account):
    card = IssuedGiftCardFactory(amount=5000)

    results = at_once(
        [lambda index=index: issued_card_redeem(card=card, amount=300, reference=f"tx-{index}") for index in range(20)],
        refusals=True,
    )

    succeeded = [result for result in results if isinstance(result, LedgerEntry)]
    refused = [result for result in results if not isinstance(result, LedgerEntry)]
    assert len(succeeded) == 16  # 16 x 300 = 4800 of 5000
    assert all(type(result).__name__ == "InsufficientFunds" for result in refused), refused
    card.refresh_from_db()
    assert card.balance == 200
    assert sum(card.ledger.values_list("amount", flat=True)) == 200
    assert sorted(entry.balance_after for entry in succeeded) == list(range(200, 5000, 300))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_refunds_never_exceed_what_was_redeemed(merchant_account):
    card = IssuedGiftCardFactory(amount=5000)
    issued_card_redeem(card=card, amount=1000, reference="tx-1")

    results = at_once([lambda: issued_card_refund(card=card, amount=300, reference="tx-1")] * 10, refusals=True)

    assert sum(isinstance(result, LedgerEntry) for result in results) == 3
    card.refresh_from_db()
    assert card.balance == 4900
