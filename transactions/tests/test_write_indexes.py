"""A create writes its rows into every index of their tables, and changes of status write the transaction's again:
on those tables no index is one that another index already serves (a leading part of a longer one)."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

# The tables `POST /transactions` writes (docs/performance.md, "indexes the create writes").
CREATE_WRITES = [
    "transactions_transaction",
    "transactions_transactionevent",
    "payments_auditlogentry",
    "payments_idempotencyrecord",
    "payments_vaultedcard",
]


def served_by_another(table: str) -> list[tuple[str, str]]:
    """(index, the longer index that leads with its columns) for each plain index another one makes redundant."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    indexes = {
        name: info["columns"]
        for name, info in constraints.items()
        if info["index"] and not info["primary_key"] and not info["unique"] and info["columns"]
    }
    every = {name: info["columns"] for name, info in constraints.items() if info["index"] and info["columns"]}
    return [
        (name, longer)
        for name, columns in indexes.items()
        for longer, longer_columns in every.items()
        if longer != name and len(longer_columns) > len(columns) and longer_columns[: len(columns)] == columns
    ]


@pytest.mark.parametrize("table", CREATE_WRITES)
def test_no_index_the_create_writes_is_served_by_another(table):
    assert served_by_another(table) == []


def test_the_lookups_by_account_and_by_transaction_keep_an_index():
    """What the dropped indexes served is served by the composite ones that lead with the same column."""
    with connection.cursor() as cursor:
        transaction = connection.introspection.get_constraints(cursor, "transactions_transaction")
        events = connection.introspection.get_constraints(cursor, "transactions_transactionevent")
    assert transaction["transaction_page"]["columns"][0] == "merchant_account_id"
    assert transaction["transaction_staff_page"]["columns"][0] == "created_at"
    assert events["transaction_event_history"]["columns"][0] == "transaction_id"


@pytest.mark.postgres
def test_the_stored_card_has_no_index_for_searching_by_a_beginning():
    """PostgreSQL's second index of a text column (`varchar_pattern_ops`, for `LIKE`), which `db_index` adds: nothing
    searches a stored card's account, key or fingerprint by its beginning."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'payments_vaultedcard'")
        definitions = [row[0] for row in cursor.fetchall()]

    assert [definition for definition in definitions if "pattern_ops" in definition] == []
    assert len(definitions) == 6  # the key, the account, the key id, the fingerprint and the two expiry times
