import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("disputes", "0004_evidence_kinds"),
        ("paymentservices", "0008_foreign_key_indexes_covered"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="dispute",
                    name="payment_service",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="paymentservices.paymentservice",
                    ),
                ),
                migrations.AlterField(
                    model_name="disputeevidencefile",
                    name="answer",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="files",
                        to="disputes.disputeanswer",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "disputes_dispute", "payment_service_id", "disputes_dispute_payment_service_id_6ca31eec"
                    ),
                    FieldIndex(
                        "disputes_disputeevidencefile", "answer_id", "disputes_disputeevidencefile_answer_id_635e235a"
                    ),
                ),
            ],
        ),
    ]
