import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0027_foreign_key_indexes_covered"),
        ("reports", "0003_choice_labels"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="report",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="reports",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AlterField(
                    model_name="reportexecution",
                    name="report",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="executions",
                        to="reports.report",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "reports_report",
                        "merchant_account_id",
                        "reports_report_merchant_account_id_a0ac8148",
                        text=True,
                    ),
                    FieldIndex("reports_reportexecution", "report_id", "reports_reportexecution_report_id_0406ed5a"),
                ),
            ],
        ),
    ]
