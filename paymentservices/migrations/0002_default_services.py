"""Every existing merchant account gets the sandbox service (`mock-card`) its payments went to until now, where
sandbox payments are allowed (DJANGO_DEBUG, or SANDBOX_PAYMENTS on a production server)."""

import uuid

import pycountry
from django.conf import settings
from django.db import migrations


def add_default_services(apps, schema_editor):
    if not (settings.DEBUG or getattr(settings, "SANDBOX_PAYMENTS", False)):
        return
    MerchantAccount = apps.get_model("payments", "MerchantAccount")
    PaymentService = apps.get_model("paymentservices", "PaymentService")
    currencies = sorted(currency.alpha_3 for currency in pycountry.currencies)
    countries = sorted(country.alpha_2 for country in pycountry.countries)
    for account in MerchantAccount.objects.exclude(pk__in=PaymentService.objects.values("merchant_account")):
        PaymentService.objects.create(
            id=uuid.uuid4(),
            merchant_account=account,
            definition_id="mock-card",
            display_name="Sandbox",
            position=1,
            active=True,
            accepted_currencies=currencies,
            accepted_countries=countries,
        )


class Migration(migrations.Migration):
    dependencies = [("paymentservices", "0001_initial")]

    operations = [migrations.RunPython(add_default_services, migrations.RunPython.noop)]
