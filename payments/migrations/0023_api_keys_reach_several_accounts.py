"""A key reaches a set of merchant accounts, or every account: each key keeps the reach it had (its one account, or
every account when it had none)."""

import django.db.models.deletion
from django.db import migrations, models


def copy_reach(apps, schema_editor):
    ApiKey = apps.get_model("payments", "ApiKey")
    ApiKeyMerchantAccount = apps.get_model("payments", "ApiKeyMerchantAccount")
    ApiKey.objects.filter(merchant_account__isnull=True).update(all_merchant_accounts=True)
    ApiKeyMerchantAccount.objects.bulk_create(
        ApiKeyMerchantAccount(api_key_id=key_id, merchant_account_id=account_id)
        for key_id, account_id in ApiKey.objects.filter(merchant_account__isnull=False).values_list(
            "pk", "merchant_account_id"
        )
    )


def copy_reach_back(apps, schema_editor):
    """Back to one account or all; a key reaching several has no such shape, so going back is refused."""
    ApiKey = apps.get_model("payments", "ApiKey")
    ApiKeyMerchantAccount = apps.get_model("payments", "ApiKeyMerchantAccount")
    reaches: dict[object, list[str]] = {}
    for key_id, account_id in ApiKeyMerchantAccount.objects.values_list("api_key_id", "merchant_account_id"):
        reaches.setdefault(key_id, []).append(account_id)
    several = [str(key_id) for key_id, accounts in reaches.items() if len(accounts) > 1]
    if several:
        raise RuntimeError(f"API keys reach several merchant accounts, which the old schema cannot hold: {several}")
    for key_id, (account_id,) in reaches.items():
        ApiKey.objects.filter(pk=key_id).update(merchant_account_id=account_id)


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0022_audit_increment_action"),
    ]

    operations = [
        migrations.AddField(
            model_name="apikey",
            name="all_merchant_accounts",
            field=models.BooleanField(default=False, verbose_name="every merchant account"),
        ),
        migrations.CreateModel(
            name="ApiKeyMerchantAccount",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "api_key",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="payments.apikey"
                    ),
                ),
                (
                    "merchant_account",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="payments.merchantaccount"
                    ),
                ),
            ],
            options={
                "verbose_name": "API key's merchant account",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("api_key", "merchant_account"), name="api_key_merchant_account_once"
                    )
                ],
            },
        ),
        migrations.RunPython(copy_reach, copy_reach_back),
    ]
