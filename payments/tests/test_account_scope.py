"""The account's rows of a model: built once, copied for every read, never another account's."""

import pytest

from payments.accounts.scope import account_rows
from payments.audit.models import AuditLogEntry

pytestmark = pytest.mark.django_db


def _entry(account, name: str) -> AuditLogEntry:
    return AuditLogEntry.objects.create(
        merchant_account=account,
        action=AuditLogEntry.Action.CREATED,
        resource_type="buyer",
        resource_id=name,
        resource_name=name,
        user_name="someone",
    )


def test_the_rows_are_the_accounts_own(merchant_account, other_merchant_account):
    mine = {_entry(merchant_account, "a"), _entry(merchant_account, "b")}
    _entry(other_merchant_account, "c")

    assert set(account_rows(AuditLogEntry, merchant_account)) == mine
    assert account_rows(AuditLogEntry, other_merchant_account).count() == 1


def test_each_read_gets_its_own_queryset(merchant_account):
    kept, dropped = _entry(merchant_account, "kept"), _entry(merchant_account, "dropped")
    first = account_rows(AuditLogEntry, merchant_account)

    narrowed = first.exclude(pk=dropped.pk)
    list(narrowed)  # evaluated: its cache is its own

    assert list(narrowed) == [kept]
    assert account_rows(AuditLogEntry, merchant_account) is not first
    assert set(account_rows(AuditLogEntry, merchant_account)) == {kept, dropped}  # the held scope took neither change


def test_rows_written_after_the_scope_was_built_are_read(merchant_account):
    assert list(account_rows(AuditLogEntry, merchant_account)) == []

    entry = _entry(merchant_account, "later")

    assert list(account_rows(AuditLogEntry, merchant_account)) == [entry]
