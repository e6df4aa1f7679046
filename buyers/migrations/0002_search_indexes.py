"""Indexes for finding one buyer among millions (docs/admin.md).

The external identifier index is plain and portable. The other two serve the searches that an ordinary
B-tree cannot: "display name contains" (a trigram index) and "email address, any case" (an expression
index matching the SQL Django writes for `billing_details__email_address__iexact`). They exist on
PostgreSQL only; SQLite, the embedded development default, scans its small tables instead.
"""

from django.db import migrations, models

POSTGRES_INDEXES = [
    (
        "buyer_display_name_trgm",
        "CREATE INDEX IF NOT EXISTS buyer_display_name_trgm ON buyers_buyer "
        "USING gin (upper(display_name) gin_trgm_ops)",
    ),
    (
        "buyer_email_upper",
        "CREATE INDEX IF NOT EXISTS buyer_email_upper ON buyers_buyer (upper(billing_details ->> 'email_address'))",
    ),
]


def create_postgres_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    # pg_trgm is a trusted extension: the database owner can create it without superuser rights.
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for _, sql in POSTGRES_INDEXES:
        schema_editor.execute(sql)
    # The planner knows an expression index's selectivity only once the table is analyzed again.
    schema_editor.execute("ANALYZE buyers_buyer")


def drop_postgres_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, _ in POSTGRES_INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("buyers", "0001_initial"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="buyer",
            index=models.Index(fields=["external_identifier"], name="buyer_external_identifier"),
        ),
        migrations.RunPython(create_postgres_indexes, drop_postgres_indexes, elidable=False),
    ]
