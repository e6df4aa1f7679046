"""A settlement's source is the id of the processor that published it (`stripe-card`, not `stripe`): a new processor
needs no migration. The rows written before are renamed once, by the ids their processors had then."""

from django.db import migrations, models

# The sources as they were named, and their processors' ids (fixed here: a migration never reads the registry).
RENAMED = {"sandbox": "mock-card", "stripe": "stripe-card", "adyen": "adyen-card"}
MODELS = ("SettlementReport", "LedgerEntry", "ReportFetch")


def forwards(apps, schema_editor):
    for name in MODELS:
        model = apps.get_model("settlements", name)
        for old, new in RENAMED.items():
            model.objects.filter(source=old).update(source=new)


def backwards(apps, schema_editor):
    for name in MODELS:
        model = apps.get_model("settlements", name)
        for old, new in RENAMED.items():
            model.objects.filter(source=new).update(source=old)


def _source() -> models.CharField:
    return models.CharField(help_text="The id of the processor that published it.", max_length=64)


class Migration(migrations.Migration):
    dependencies = [
        ("settlements", "0004_ledger_entry_mismatch"),
    ]

    operations = [
        migrations.AlterField(model_name="ledgerentry", name="source", field=_source()),
        migrations.AlterField(model_name="reportfetch", name="source", field=_source()),
        migrations.AlterField(model_name="settlementreport", name="source", field=_source()),
        migrations.RunPython(forwards, backwards),
    ]
