"""A write goes into every index of its table, and a create's changes of status write the transaction's again: no
index is one that another index already serves (a leading part of a longer one), on the tables a create writes
(both databases) and on every table of the project's models (PostgreSQL's catalog, which says which are partial)."""

import pytest
from django.apps import apps
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


def _project_tables() -> set[str]:
    """The tables of the project's own models (Django's own apps keep theirs as Django makes them)."""
    return {
        model._meta.db_table
        for model in apps.get_models(include_auto_created=True)
        if not model.__module__.startswith("django.") and not model._meta.proxy
    }


@pytest.mark.postgres
def test_no_index_of_the_projects_tables_is_served_by_another():
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT t.relname, i.relname, x.indkey::int2[], x.indisunique,
                x.indpred IS NOT NULL OR x.indexprs IS NOT NULL
            FROM pg_index x
            JOIN pg_class i ON i.oid = x.indexrelid
            JOIN pg_class t ON t.oid = x.indrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE n.nspname = current_schema()
            """
        )
        indexes = cursor.fetchall()
    tables = _project_tables()
    # A partial or expression index serves only its own queries: it neither covers another nor is covered.
    plain = [(table, name, keys, unique) for table, name, keys, unique, special in indexes if not special]
    served = [
        (table, name, longer)
        for table, name, keys, unique in plain
        if table in tables and not unique
        for other_table, longer, other_keys, _ in plain
        if other_table == table and len(other_keys) > len(keys) and other_keys[: len(keys)] == keys
    ]

    assert served == []
