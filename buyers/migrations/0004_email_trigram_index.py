"""A trigram index on the buyer's email address, so support finds `jane.doe` in `Jane.Doe@example.com`.

It matches the SQL Django writes for `billing_details__email_address__icontains` (docs/admin.md), as
`buyer_display_name_trgm` matches the display name's. PostgreSQL only, like the other search indexes.
"""

from django.db import migrations

NAME = "buyer_email_trgm"
SQL = (
    f"CREATE INDEX IF NOT EXISTS {NAME} ON buyers_buyer "
    "USING gin (upper(billing_details ->> 'email_address') gin_trgm_ops)"
)


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    schema_editor.execute(SQL)
    schema_editor.execute("ANALYZE buyers_buyer")


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {NAME}")


class Migration(migrations.Migration):
    dependencies = [
        ("buyers", "0003_shipping_details"),
    ]

    operations = [migrations.RunPython(create_index, drop_index, elidable=False)]
