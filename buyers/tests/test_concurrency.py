"""Real concurrent writers against PostgreSQL: the unique constraint, not luck, decides."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from buyers.models import Buyer

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_creates_with_the_same_external_identifier_give_one_201_and_one_409(token_for, merchant_account):
    token = token_for(["buyers.write"])
    start = threading.Barrier(2)
    statuses: list[int] = []

    def create() -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
            start.wait(timeout=10)
            statuses.append(client.post("/buyers", {"external_identifier": "race"}, format="json").status_code)
        finally:
            connection.close()  # each thread has its own connection; the test database must be droppable

    threads = [threading.Thread(target=create) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(statuses) == [201, 409]
    assert Buyer.objects.filter(external_identifier="race").count() == 1
