import django.db.models.deletion
from django.db import migrations, models

from payments.migration_indexes import FieldIndex, drop_field_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0027_foreign_key_indexes_covered"),
        ("webhooks", "0003_desk_labels"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="webhookattempt",
                    name="delivery",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="attempts",
                        to="webhooks.webhookdelivery",
                    ),
                ),
                migrations.AlterField(
                    model_name="webhookdelivery",
                    name="event",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webhook_deliveries",
                        to="payments.outboxevent",
                    ),
                ),
                migrations.AlterField(
                    model_name="webhookdelivery",
                    name="subscription",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="deliveries",
                        to="webhooks.webhooksubscription",
                    ),
                ),
                migrations.AlterField(
                    model_name="webhooksubscription",
                    name="merchant_account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webhook_subscriptions",
                        to="payments.merchantaccount",
                    ),
                ),
            ],
            database_operations=[
                drop_field_indexes(
                    FieldIndex(
                        "webhooks_webhooksubscription",
                        "merchant_account_id",
                        "webhooks_webhooksubscription_merchant_account_id_3c2c6f0f",
                        text=True,
                    ),
                    FieldIndex(
                        "webhooks_webhookdelivery",
                        "subscription_id",
                        "webhooks_webhookdelivery_subscription_id_52338ede",
                    ),
                    FieldIndex(
                        "webhooks_webhookattempt", "delivery_id", "webhooks_webhookattempt_delivery_id_c57db657"
                    ),
                    FieldIndex("webhooks_webhookdelivery", "event_id", "webhooks_webhookdelivery_event_id_48da21e7"),
                ),
            ],
        ),
    ]
