import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("transactions", "0024_indexes_covered_by_composites"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="capture",
                    name="transaction",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="captures",
                        to="transactions.transaction",
                    ),
                ),
                migrations.AlterField(
                    model_name="refund",
                    name="transaction",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="refunds",
                        to="transactions.transaction",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex("transactions_refund", "transaction_id", "transactions_refund_transaction_id_dec3145d"),
                    FieldIndex(
                        "transactions_capture", "transaction_id", "transactions_capture_transaction_id_0d9dcaa9"
                    ),
                ),
            ],
        ),
    ]
