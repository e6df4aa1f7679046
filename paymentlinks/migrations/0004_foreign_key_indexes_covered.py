import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("paymentlinks", "0003_choice_labels"),
        ("payments", "0027_foreign_key_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="paymentlink",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="payment_links",
                        to="payments.merchantaccount",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "paymentlinks_paymentlink",
                        "merchant_account_id",
                        "paymentlinks_paymentlink_merchant_account_id_b86cd300",
                        text=True,
                    ),
                ),
            ],
        ),
    ]
