import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0027_foreign_key_indexes_covered"),
        ("paymentservices", "0008_foreign_key_indexes_covered"),
        ("settlements", "0010_ledger_card_payouts"),
        ("transactions", "0025_foreign_key_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="ledgerentry",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="ledger_entries",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AlterField(
                    model_name="ledgerentry",
                    name="transaction",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="ledger_entries",
                        to="transactions.transaction",
                    ),
                ),
                migrations.AlterField(
                    model_name="processorpayout",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="processor_payouts",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AlterField(
                    model_name="reportfetch",
                    name="payment_service",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="report_fetches",
                        to="paymentservices.paymentservice",
                    ),
                ),
                migrations.AlterField(
                    model_name="settlementreport",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="settlement_reports",
                        to="payments.merchantaccount",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "settlements_ledgerentry",
                        "merchant_account_id",
                        "settlements_ledgerentry_merchant_account_id_6f8c232c",
                        text=True,
                    ),
                    FieldIndex(
                        "settlements_ledgerentry", "transaction_id", "settlements_ledgerentry_transaction_id_76f97fff"
                    ),
                    FieldIndex(
                        "settlements_settlementreport",
                        "merchant_account_id",
                        "settlements_settlementreport_merchant_account_id_c7bc71d4",
                        text=True,
                    ),
                    FieldIndex(
                        "settlements_processorpayout",
                        "merchant_account_id",
                        "settlements_processorpayout_merchant_account_id_50150183",
                        text=True,
                    ),
                    FieldIndex(
                        "settlements_reportfetch",
                        "payment_service_id",
                        "settlements_reportfetch_payment_service_id_c5ee99c5",
                    ),
                ),
            ],
        ),
    ]
