import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("paymentmethods", "0005_foreign_key_indexes_covered"),
        ("payments", "0027_foreign_key_indexes_covered"),
        ("paymentservices", "0007_payment_service_tokens"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="inboundnotification",
                    name="payment_service",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="notifications",
                        to="paymentservices.paymentservice",
                        verbose_name="payment service",
                    ),
                ),
                migrations.AlterField(
                    model_name="paymentservice",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="payment_services",
                        to="payments.merchantaccount",
                    ),
                ),
                migrations.AlterField(
                    model_name="paymentservicetoken",
                    name="payment_method",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="service_tokens",
                        to="paymentmethods.paymentmethod",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "paymentservices_paymentservice",
                        "merchant_account_id",
                        "paymentservices_paymentservice_merchant_account_id_9c5a7b37",
                        text=True,
                    ),
                    FieldIndex(
                        "paymentservices_paymentservicetoken",
                        "payment_method_id",
                        "paymentservices_paymentservicetoken_payment_method_id_8f720eac",
                    ),
                    FieldIndex(
                        "paymentservices_inboundnotification",
                        "payment_service_id",
                        "paymentservices_inboundnotification_payment_service_id_a283c087",
                    ),
                ),
            ],
        ),
    ]
