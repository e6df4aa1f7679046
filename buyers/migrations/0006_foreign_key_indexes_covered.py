import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("buyers", "0005_desk_labels"),
        ("payments", "0027_foreign_key_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="buyer",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="buyers",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AlterField(
                    model_name="shippingdetails",
                    name="buyer",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="shipping_details",
                        to="buyers.buyer",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "buyers_buyer", "merchant_account_id", "buyers_buyer_merchant_account_id_7b9375c2", text=True
                    ),
                    FieldIndex("buyers_shippingdetails", "buyer_id", "buyers_shippingdetails_buyer_id_c86c652f"),
                ),
            ],
        ),
    ]
