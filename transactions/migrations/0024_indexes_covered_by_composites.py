import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0025_account_indexes_covered_by_composites"),
        ("transactions", "0023_daily_totals_for_trends"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="transaction",
                    name="created_at",
                    field=models.DateTimeField(auto_now_add=True),
                ),
                migrations.AlterField(
                    model_name="transaction",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="transactions",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AlterField(
                    model_name="transactionevent",
                    name="transaction",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="events",
                        to="transactions.transaction",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "transactions_transaction", "created_at", "transactions_transaction_created_at_8bc781f4"
                    ),
                    FieldIndex(
                        "transactions_transaction",
                        "merchant_account_id",
                        "transactions_transaction_merchant_account_id_62eabceb",
                        text=True,
                    ),
                    FieldIndex(
                        "transactions_transactionevent",
                        "transaction_id",
                        "transactions_transactionevent_transaction_id_4229dd0f",
                    ),
                )
            ],
        ),
    ]
