import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0027_foreign_key_indexes_covered"),
        ("threedsecure", "0002_desk_labels"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="threedsscenario",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="three_ds_scenarios",
                        to="payments.merchantaccount",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "threedsecure_threedsscenario",
                        "merchant_account_id",
                        "threedsecure_threedsscenario_merchant_account_id_5b847436",
                        text=True,
                    ),
                ),
            ],
        ),
    ]
