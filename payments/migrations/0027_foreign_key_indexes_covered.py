import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0026_vaulted_card_indexes_without_like"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="apikeymerchantaccount",
                    name="api_key",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="payments.apikey",
                    ),
                ),
                migrations.AlterField(
                    model_name="ratelimitevent",
                    name="merchant_account",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rate_limit_events",
                        to="payments.merchantaccount",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "payments_ratelimitevent",
                        "merchant_account_id",
                        "payments_ratelimitevent_merchant_account_id_9bc81710",
                        text=True,
                    ),
                    FieldIndex(
                        "payments_apikeymerchantaccount",
                        "api_key_id",
                        "payments_apikeymerchantaccount_api_key_id_e166ae59",
                    ),
                ),
            ],
        ),
    ]
