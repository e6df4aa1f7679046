"""The official `gr4vy` SDK, unchanged, against a running server: checkout sessions end to end."""

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone
from gr4vy import errors, models

from checkout.models import CheckoutSession
from payments.vault.models import VaultedCard

pytestmark = pytest.mark.django_db(transaction=True)


def test_create_get_update_delete(sdk, live_server):
    before = timezone.now()
    created = sdk.checkout_sessions.create(
        checkout_session_create={
            "amount": 1299,
            "currency": "USD",
            "cart_items": [{"name": "GoPro HD", "quantity": 1, "unit_amount": 1299}],
            "metadata": {"order_id": "order-12345"},
            "buyer": {"display_name": "John Doe", "billing_details": {"email_address": "john@example.com"}},
            "airline": {"booking_code": "X36Q9C", "legs": [{"departure_airport": "SFO"}]},
        }
    )
    assert isinstance(created, models.CheckoutSession)
    assert (created.amount, created.currency, created.metadata) == (1299, "USD", {"order_id": "order-12345"})
    assert created.cart_items[0].name == "GoPro HD"
    assert created.buyer.billing_details.email_address == "john@example.com"
    assert created.airline.legs[0].departure_airport == "SFO"
    assert created.payment_method is None
    assert before + timedelta(seconds=3600) <= created.expires_at <= timezone.now() + timedelta(seconds=3600)

    fetched = sdk.checkout_sessions.get(session_id=created.id)
    assert (fetched.id, fetched.expires_at) == (created.id, created.expires_at)

    updated = sdk.checkout_sessions.update(session_id=created.id, amount=2500, metadata=None, expires_in=7200.0)
    assert (updated.amount, updated.currency, updated.metadata) == (2500, "USD", None)
    assert updated.expires_at > created.expires_at

    sdk.checkout_sessions.delete(session_id=created.id)
    assert not CheckoutSession.objects.exists()
    with pytest.raises(errors.Error404):
        sdk.checkout_sessions.get(session_id=created.id)


def test_empty_create_and_card_summary_after_secure_fields(sdk, live_server):
    created = sdk.checkout_sessions.create()
    assert isinstance(created, models.CheckoutSession)

    # The browser's call: no token, the session id is the credential.
    with httpx.Client() as browser:
        response = browser.put(
            f"{live_server.url}/checkout/sessions/{created.id}/fields",
            json={"payment_method": {"method": "card", "number": "4111111111111111", "expiration_date": "12/39"}},
        )
    assert response.status_code == 204

    fetched = sdk.checkout_sessions.get(session_id=created.id)
    assert isinstance(fetched.payment_method, models.CheckoutSessionPaymentMethod)
    assert (fetched.payment_method.label, fetched.payment_method.scheme) == ("1111", "visa")
    assert fetched.payment_method.details.bin == "411111"
    assert fetched.expires_at <= timezone.now() + timedelta(minutes=5)
    assert VaultedCard.objects.count() == 1


def test_bad_expires_in_is_a_typed_400(sdk):
    with pytest.raises(errors.Error400) as raised:
        sdk.checkout_sessions.create(checkout_session_create={"expires_in": 3600.5})
    assert raised.value.data.details[0].pointer == "/expires_in"


def test_missing_scope_is_a_typed_403(sdk_client):
    reader = sdk_client(scopes=["checkout-sessions.read"])
    with pytest.raises(errors.Error403):
        reader.checkout_sessions.create()
