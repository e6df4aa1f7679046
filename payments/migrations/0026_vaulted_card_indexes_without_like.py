import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, keep_index_without_like


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0025_account_indexes_covered_by_composites"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="vaultedcard",
                    name="fingerprint",
                    field=models.CharField(help_text="Keyed hash of the number.", max_length=64),
                ),
                migrations.AlterField(
                    model_name="vaultedcard",
                    name="key_id",
                    field=models.CharField(editable=False, max_length=32),
                ),
                migrations.AlterField(
                    model_name="vaultedcard",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="vaulted_cards",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AddIndex(
                    model_name="vaultedcard",
                    index=models.Index(fields=["merchant_account"], name="vaulted_card_account"),
                ),
                migrations.AddIndex(
                    model_name="vaultedcard",
                    index=models.Index(fields=["key_id"], name="vaulted_card_key"),
                ),
                migrations.AddIndex(
                    model_name="vaultedcard",
                    index=models.Index(fields=["fingerprint"], name="vaulted_card_fingerprint"),
                ),
            ],
            database_operations=[
                keep_index_without_like(
                    FieldIndex(
                        "payments_vaultedcard",
                        "merchant_account_id",
                        "payments_vaultedcard_merchant_account_id_540bad4b",
                        text=True,
                    ),
                    "vaulted_card_account",
                ),
                keep_index_without_like(
                    FieldIndex("payments_vaultedcard", "key_id", "payments_vaultedcard_key_id_aa90870a", text=True),
                    "vaulted_card_key",
                ),
                keep_index_without_like(
                    FieldIndex(
                        "payments_vaultedcard", "fingerprint", "payments_vaultedcard_fingerprint_920fa0c0", text=True
                    ),
                    "vaulted_card_fingerprint",
                ),
            ],
        ),
    ]
