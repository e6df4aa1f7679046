"""Migrations that take indexes off a field without touching anything else: its own index where an index of several
columns leads with it (`drop_field_indexes`), or PostgreSQL's `LIKE` index beside a text column's own
(`keep_index_without_like`).

Django's own way of changing a foreign key's index drops the key's constraint and adds it back, which validates it
against every row again under lock: a full scan of a table that may hold millions. These leave the constraint as it
was; each migration pairs them with the model's new state (`SeparateDatabaseAndState`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import migrations


@dataclass(frozen=True)
class FieldIndex:
    """The index Django made for `table.column` (its name is in the migration that made it). A text column has a
    second one on PostgreSQL for `LIKE`, named as Django names it (`_like_name`)."""

    table: str
    column: str
    name: str
    text: bool = False


def _like_name(index: FieldIndex, schema_editor: Any) -> str:
    """The `LIKE` index's name as Django made it: `<name>_like` when that fits PostgreSQL's 63 characters, else
    shortened its own way (`paymentservices_payments_merchant_account_id_9c5a7b37_like`)."""
    name: str = schema_editor._create_index_name(index.table, [index.column], suffix="_like")
    return name


def _names(index: FieldIndex, schema_editor: Any) -> list[tuple[str, str]]:
    """(index name, its quoted column and operator class) for each index the field has on this database."""
    column = schema_editor.quote_name(index.column)
    names = [(index.name, column)]
    if index.text and schema_editor.connection.vendor == "postgresql":
        names.append((_like_name(index, schema_editor), f"{column} varchar_pattern_ops"))
    return names


def _create_field_indexes(index: FieldIndex, schema_editor: Any) -> None:
    """The field's indexes as Django made them (a migration's way back)."""
    quote = schema_editor.quote_name
    for name, indexed in _names(index, schema_editor):
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {quote(name)} ON {quote(index.table)} ({indexed})")


def drop_field_indexes(*indexes: FieldIndex) -> migrations.RunPython:
    def drop(apps: Any, schema_editor: Any) -> None:
        for index in indexes:
            for name, _ in _names(index, schema_editor):
                schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")

    def restore(apps: Any, schema_editor: Any) -> None:
        for index in indexes:
            _create_field_indexes(index, schema_editor)

    return migrations.RunPython(drop, restore)


def keep_index_without_like(index: FieldIndex, name: str) -> migrations.RunPython:
    """Keep a text column's own btree index, renamed `name` (an index the model declares, `Meta.indexes`), and drop
    the `LIKE` index PostgreSQL had beside it: a column nothing searches by its beginning. PostgreSQL renames the
    index in place; SQLite, which cannot, builds it again (a development database)."""

    def keep(apps: Any, schema_editor: Any) -> None:
        quote = schema_editor.quote_name
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"ALTER INDEX {quote(index.name)} RENAME TO {quote(name)}")
            schema_editor.execute(f"DROP INDEX IF EXISTS {quote(_like_name(index, schema_editor))}")
        else:
            schema_editor.execute(f"DROP INDEX IF EXISTS {quote(index.name)}")
            schema_editor.execute(f"CREATE INDEX {quote(name)} ON {quote(index.table)} ({quote(index.column)})")

    def restore(apps: Any, schema_editor: Any) -> None:
        quote = schema_editor.quote_name
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"ALTER INDEX {quote(name)} RENAME TO {quote(index.name)}")
        else:
            schema_editor.execute(f"DROP INDEX IF EXISTS {quote(name)}")
        _create_field_indexes(index, schema_editor)

    return migrations.RunPython(keep, restore)
