"""The stored method's desk page lists its tokens at processors with their state."""

import pytest
from django.utils import timezone

from paymentmethods.tests.factories import PaymentMethodFactory
from paymentservices.models import PaymentServiceToken
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db


def test_the_method_page_lists_its_tokens_with_their_state(admin_client, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    kept_at = PaymentServiceFactory(mock_card=True, merchant_account=merchant_account, display_name="Kept here")
    revoked_at = PaymentServiceFactory(merchant_account=merchant_account, display_name="Revoked there")
    PaymentServiceToken.objects.create(payment_method=method, payment_service=kept_at, status="succeeded", token="t1")
    PaymentServiceToken.objects.create(
        payment_method=method,
        payment_service=revoked_at,
        status="succeeded",
        token="t2",
        revoked_at=timezone.now(),
        reason="the issuer closed the card",
    )

    page = admin_client.get(f"/admin/paymentmethods/paymentmethod/{method.pk}/change/").content.decode()

    assert "Tokens at processors" in page
    assert "Kept here · Mock card (sandbox)</a>: kept since" in page
    assert "Revoked there · Stripe</a>: revoked since" in page
    assert "(the issuer closed the card)" in page
