"""Credentials are sealed with the vault's keys, bound to their service and field, and re-sealed by rotation."""

import io
import logging

import pytest
from django.core.management import call_command

from conftest import TEST_CARD_KEYS
from payments.vault import crypto
from paymentservices.models import PaymentService
from paymentservices.services import payment_service_credentials, payment_service_credentials_count_stale
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db

SECRET = "sk_test_sealed_0123456789"


def test_a_secret_is_sealed_for_its_service_and_field_only(merchant_account):
    one = PaymentServiceFactory(fields=[{"key": "secret_key", "value": SECRET}])
    two = PaymentServiceFactory()

    assert SECRET not in str(PaymentService.objects.filter(pk=one.pk).values().get())
    assert payment_service_credentials(service=one) == {"secret_key": SECRET}
    two.sealed_fields = dict(one.sealed_fields)  # a ciphertext moved to another row does not open there
    with pytest.raises(crypto.VaultError):
        payment_service_credentials(service=two)


def test_rotate_card_keys_reseals_credentials_too(merchant_account, settings):
    service = PaymentServiceFactory(
        fields=[{"key": "secret_key", "value": SECRET}, {"key": "webhook_secret", "value": "whsec_rotate"}]
    )
    new = "new:" + crypto.generate_key_spec("x").split(":", 1)[1]
    settings.CARD_ENCRYPTION_KEYS = [new, TEST_CARD_KEYS[0]]
    assert payment_service_credentials_count_stale() == 1

    call_command("rotate_card_keys", "--batch-size", "1", stdout=io.StringIO())

    settings.CARD_ENCRYPTION_KEYS = [new]  # the old key can go now
    service.refresh_from_db()
    assert service.key_id == "new"
    assert payment_service_credentials(service=service) == {"secret_key": SECRET, "webhook_secret": "whsec_rotate"}
    assert payment_service_credentials_count_stale() == 0


def test_credentials_never_reach_a_log(api_client, merchant_account, caplog, stripe_api):
    caplog.set_level(logging.DEBUG)
    client = api_client(scopes=["payment-services.read", "payment-services.write"])
    body = {
        "display_name": "Stripe",
        "payment_service_definition_id": "stripe-card",
        "fields": [{"key": "secret_key", "value": SECRET}],
        "accepted_currencies": ["USD"],
        "accepted_countries": ["US"],
    }

    created = client.post("/payment-services", body, format="json").json()
    client.post(
        "/payment-services/verify",
        {"payment_service_definition_id": "stripe-card", "fields": [{"key": "secret_key", "value": SECRET}]},
        format="json",
    )
    client.get(f"/payment-services/{created['id']}")

    assert SECRET not in caplog.text
