"""Real concurrent writers against PostgreSQL: the account's row lock keeps the routing order contiguous."""

import pytest
from rest_framework.test import APIClient

from payments.tests.races import at_once
from paymentservices.models import PaymentService

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
