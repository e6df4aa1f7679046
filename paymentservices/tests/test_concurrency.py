"""Real concurrent writers against PostgreSQL: the account's row lock keeps the routing order contiguous, and the
tokens' constraint keeps one working token of a stored method per service."""

import pytest
from rest_framework.test import APIClient

from paymentmethods.tests.factories import PaymentMethodFactory
from payments.tests.races import at_once
from paymentservices.models import PaymentService, PaymentServiceToken

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BODY = {
    "payment_service_definition_id": "stripe-card",
    "fields": [{"key": "secret_key", "value": "sk_test_race_0123"}],
    "accepted_currencies": ["USD"],
    "accepted_countries": ["US"],
}


def test_racing_creates_and_moves_keep_positions_one_to_n(token_for, merchant_account):
    token = token_for(["payment-services.write"])
    writers = 4

    def create(number: int):
        def post() -> int:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
            body = {**BODY, "display_name": f"stripe-{number}", "position": 1 if number % 2 else None}
            return client.post("/payment-services", body, format="json").status_code

        return post

    statuses = at_once([create(number) for number in range(writers)])

    assert statuses == [201] * writers
    positions = sorted(
        PaymentService.objects.filter(merchant_account=merchant_account).values_list("position", flat=True)
    )
    assert positions == list(range(1, writers + 2))  # the sandbox and the four, each in its own place


def test_racing_token_creates_keep_one_working_token_per_method_and_service(token_for, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    sandbox = PaymentService.objects.get(merchant_account=merchant_account, definition_id="mock-card")
    token = token_for(["payment-methods.write"])
    body = {"payment_service_id": str(sandbox.pk), "redirect_url": "https://shop.example/back"}

    def create() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        return client.post(f"/payment-methods/{method.pk}/payment-service-tokens", body, format="json").status_code

    statuses = at_once([create] * 4)

    assert sorted(statuses) == [201, 409, 409, 409]
    assert PaymentServiceToken.objects.filter(payment_method=method).count() == 1
