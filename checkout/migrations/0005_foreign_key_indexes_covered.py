import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("checkout", "0004_choice_labels"),
        ("payments", "0027_foreign_key_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="checkoutsession",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="checkout_sessions",
                        to="payments.merchantaccount",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "checkout_checkoutsession",
                        "merchant_account_id",
                        "checkout_checkoutsession_merchant_account_id_bd9b091a",
                        text=True,
                    ),
                ),
            ],
        ),
    ]
