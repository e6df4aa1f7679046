"""The official `gr4vy` SDK, unchanged, against a running server: definitions listed and read, a Stripe service
configured (its credentials verified at a fake Stripe first), listed, moved, updated, deleted; the session
operations refused by name."""

import pytest
from gr4vy import errors, models

from paymentservices.models import PaymentService
from paymentservices.processors.stripe.tests.mock import localstripe
from paymentservices.processors.tests.overrides import override_processor

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "sk_test_sdk_secret_0123456789"


def test_definitions(sdk, merchant_account):
    page = sdk.payment_service_definitions.list(limit=1)
    ids = [item.id for item in page.result.items]
    while (page := page.next()) is not None:
        ids += [item.id for item in page.result.items]
    stripe_card = sdk.payment_service_definitions.get(payment_service_definition_id="stripe-card")

    assert ids == ["adyen-card", "mock-card", "paypal-paypal", "stripe-card"]
    assert isinstance(stripe_card, models.PaymentServiceDefinition)
    assert [(field.key, field.required, field.secret) for field in stripe_card.fields] == [
        ("secret_key", True, True),
        ("webhook_secret", False, True),
        ("publishable_key", False, False),
    ]
    with pytest.raises(errors.Error404):
        sdk.payment_service_definitions.get(payment_service_definition_id="worldpay-card")


def test_a_stripe_service_is_verified_configured_moved_and_deleted(sdk, merchant_account, settings):
    with localstripe() as fake:
        override_processor(settings, "stripe", API_BASE=fake.url)
        sdk.payment_services.verify(
            payment_service_definition_id="stripe-card", fields=[{"key": "secret_key", "value": SECRET}]
        )
        with pytest.raises(errors.Error400) as refused:
            sdk.payment_services.verify(
                payment_service_definition_id="stripe-card", fields=[{"key": "secret_key", "value": "sk_"}]
            )
    assert "secret_key" in refused.value.message

    created = sdk.payment_services.create(
        display_name="Stripe",
        payment_service_definition_id="stripe-card",
        fields=[{"key": "secret_key", "value": SECRET}, {"key": "webhook_secret", "value": "whsec_sdk"}],
        accepted_currencies=["USD", "EUR"],
        accepted_countries=["US", "DE"],
    )
    assert isinstance(created, models.PaymentService)
    assert (created.payment_service_definition_id, created.position, created.active) == ("stripe-card", 2, True)
    assert created.fields == []  # secrets are never returned
    assert created.webhook_url.endswith(f"/inbound/payment-services/{created.id}/notifications")

    moved = sdk.payment_services.update(payment_service_id=created.id, position=1, display_name="Stripe first")
    assert (moved.position, moved.display_name) == (1, "Stripe first")
    listed = sdk.payment_services.list()
    assert [(item.display_name, item.position) for item in listed.result.items] == [
        ("Stripe first", 1),
        ("Sandbox", 2),
    ]
    assert sdk.payment_services.get(payment_service_id=created.id).id == created.id

    sdk.payment_services.delete(payment_service_id=created.id)
    assert [item.id for item in sdk.payment_services.list(deleted=True).result.items] == [created.id]
    assert PaymentService.objects.get(pk=created.id).is_deleted


def test_bad_inputs_are_typed_errors(sdk, merchant_account, other_merchant_account):
    theirs = PaymentService.objects.get(merchant_account=other_merchant_account)

    with pytest.raises(errors.Error400):
        sdk.payment_services.create(
            display_name="Worldpay",
            payment_service_definition_id="worldpay-card",
            fields=[],
            accepted_currencies=["USD"],
            accepted_countries=["US"],
        )
    with pytest.raises(errors.Error400):
        sdk.payment_services.create(
            display_name="Stripe",
            payment_service_definition_id="stripe-card",
            fields=[],
            accepted_currencies=["USD"],
            accepted_countries=["US"],
        )
    with pytest.raises(errors.Error404):
        sdk.payment_services.get(payment_service_id=str(theirs.pk))
    assert PaymentService.objects.count() == 2  # each account's sandbox, nothing more


def test_sessions_are_refused_by_name(sdk, merchant_account):
    service = PaymentService.objects.get(merchant_account=merchant_account)

    with pytest.raises(errors.Error400) as by_service:
        sdk.payment_services.session(payment_service_id=str(service.pk), request_body={"a": 1})
    with pytest.raises(errors.Error400) as by_definition:
        sdk.payment_service_definitions.session(payment_service_definition_id="stripe-card", request_body={"a": 1})

    assert "/sessions is not supported" in by_service.value.message
    assert "/sessions is not supported" in by_definition.value.message
