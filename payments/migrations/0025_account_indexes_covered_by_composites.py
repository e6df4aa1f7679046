import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0024_api_key_merchant_accounts_replace_one"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="auditlogentry",
                    name="merchant_account",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AlterField(
                    model_name="idempotencyrecord",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="payments.merchantaccount",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "payments_auditlogentry",
                        "merchant_account_id",
                        "payments_auditlogentry_merchant_account_id_54b8b6cc",
                        text=True,
                    ),
                    FieldIndex(
                        "payments_idempotencyrecord",
                        "merchant_account_id",
                        "payments_idempotencyrecord_merchant_account_id_cbf39949",
                        text=True,
                    ),
                )
            ],
        ),
    ]
