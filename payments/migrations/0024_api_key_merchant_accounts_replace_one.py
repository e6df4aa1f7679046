"""The set of merchant accounts replaces the key's one account (copied by 0023, in a transaction of its own:
PostgreSQL refuses to alter a table whose rows changed earlier in the same transaction)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0023_api_keys_reach_several_accounts"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="apikey",
            name="merchant_account",
        ),
        migrations.AddField(
            model_name="apikey",
            name="merchant_accounts",
            field=models.ManyToManyField(
                blank=True, related_name="api_keys", through="payments.ApiKeyMerchantAccount", to="payments.merchantaccount"
            ),
        ),
    ]
