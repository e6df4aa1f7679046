import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("giftcards", "0005_api_issuances_and_activation"),
        ("payments", "0027_foreign_key_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="giftcard",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="gift_cards",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AlterField(
                    model_name="issuedgiftcard",
                    name="service",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="issued_cards",
                        to="giftcards.giftcardservice",
                    ),
                ),
                migrations.AlterField(
                    model_name="ledgerentry",
                    name="card",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="ledger",
                        to="giftcards.issuedgiftcard",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex("giftcards_ledgerentry", "card_id", "giftcards_ledgerentry_card_id_287d211b"),
                    FieldIndex(
                        "giftcards_giftcard",
                        "merchant_account_id",
                        "giftcards_giftcard_merchant_account_id_19544957",
                        text=True,
                    ),
                    FieldIndex(
                        "giftcards_issuedgiftcard", "service_id", "giftcards_issuedgiftcard_service_id_2437d7a2"
                    ),
                ),
            ],
        ),
    ]
