"""`mock-card` takes upstream's required `merchant_id` (a value nothing reads): the sandbox services made before it
get the one new accounts' sandboxes get, so updating one does not fail for a field it never had."""

from django.db import migrations

SANDBOX_MERCHANT_ID = "sandbox"  # paymentservices.services.SANDBOX_MERCHANT_ID when this was written


def give_merchant_id(apps, schema_editor):
    PaymentService = apps.get_model("paymentservices", "PaymentService")
    for service in PaymentService.objects.filter(definition_id="mock-card").only("pk", "fields"):
        if "merchant_id" not in (service.fields or {}):
            service.fields = {**(service.fields or {}), "merchant_id": SANDBOX_MERCHANT_ID}
            service.save(update_fields=["fields"])


class Migration(migrations.Migration):
    dependencies = [("paymentservices", "0003_cascade_retryable_declines")]

    operations = [migrations.RunPython(give_merchant_id, migrations.RunPython.noop)]
