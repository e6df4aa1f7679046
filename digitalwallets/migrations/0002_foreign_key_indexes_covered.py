import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("digitalwallets", "0001_digital_wallets"),
        ("payments", "0027_foreign_key_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="digitalwallet",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="digital_wallets",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AlterField(
                    model_name="walletkey",
                    name="wallet",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="keys",
                        to="digitalwallets.digitalwallet",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "digitalwallets_digitalwallet",
                        "merchant_account_id",
                        "digitalwallets_digitalwallet_merchant_account_id_c257fa76",
                        text=True,
                    ),
                    FieldIndex("digitalwallets_walletkey", "wallet_id", "digitalwallets_walletkey_wallet_id_cb8a008f"),
                ),
            ],
        ),
    ]
