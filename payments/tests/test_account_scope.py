"""The account's rows of a model: built once, copied for every read, never another account's."""

import pytest

from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory
from payments.accounts.scope import account_rows

pytestmark = pytest.mark.django_db


def test_the_rows_are_the_accounts_own(merchant_account, other_merchant_account):
    mine = BuyerFactory.create_batch(2, merchant_account=merchant_account)
    BuyerFactory(merchant_account=other_merchant_account)

    assert set(account_rows(Buyer, merchant_account)) == set(mine)
    assert account_rows(Buyer, other_merchant_account).count() == 1


def test_each_read_gets_its_own_queryset(merchant_account):
    kept, dropped = BuyerFactory(merchant_account=merchant_account), BuyerFactory(merchant_account=merchant_account)
    first = account_rows(Buyer, merchant_account)

    narrowed = first.exclude(pk=dropped.pk)
    list(narrowed)  # evaluated: its cache is its own

    assert list(narrowed) == [kept]
    assert account_rows(Buyer, merchant_account) is not first
    assert set(account_rows(Buyer, merchant_account)) == {kept, dropped}  # the held scope took neither change


def test_rows_written_after_the_scope_was_built_are_read(merchant_account):
    assert list(account_rows(Buyer, merchant_account)) == []

    buyer = BuyerFactory(merchant_account=merchant_account)

    assert list(account_rows(Buyer, merchant_account)) == [buyer]
