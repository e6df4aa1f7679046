import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("buyers", "0006_foreign_key_indexes_covered"),
        ("paymentmethods", "0004_choice_labels"),
        ("payments", "0027_foreign_key_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="paymentmethod",
                    name="buyer",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="payment_methods",
                        to="buyers.buyer",
                    ),
                ),
                migrations.AlterField(
                    model_name="paymentmethod",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="payment_methods",
                        to="payments.merchantaccount",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "paymentmethods_paymentmethod",
                        "merchant_account_id",
                        "paymentmethods_paymentmethod_merchant_account_id_92dcc36a",
                        text=True,
                    ),
                    FieldIndex(
                        "paymentmethods_paymentmethod", "buyer_id", "paymentmethods_paymentmethod_buyer_id_cee990fe"
                    ),
                ),
            ],
        ),
    ]
