"""Numbers and PINs never appear in clear: not in any database column, response or log line."""

import logging

import pytest
from django.db import connection

from giftcards.models import GiftCard
from giftcards.services import issued_card_create, issued_card_redeem, issued_card_refund

pytestmark = pytest.mark.django_db

NUMBER = "6035718452093716624"
PIN = "73914682"


def every_stored_value() -> str:
    """Every value of every row of every table, as text."""
    chunks = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608 - names from introspection
            chunks.extend(repr(row) for row in cursor.fetchall())
    return "\n".join(chunks)


def test_no_number_or_pin_in_clear_anywhere_after_every_flow(api_client, merchant_account, caplog):
    caplog.set_level(logging.DEBUG)
    issued = issued_card_create(merchant_account=merchant_account, amount=5000, currency="USD", number=NUMBER, pin=PIN)
    client = api_client(scopes=["gift-cards.read", "gift-cards.write"])
    wrong_pin = PIN[::-1]
    responses = [
        client.post("/gift-cards", {"number": NUMBER, "pin": PIN}, format="json"),
        client.post("/gift-cards", {"number": NUMBER, "pin": wrong_pin}, format="json"),
        client.post("/gift-cards/balances", {"items": [{"number": NUMBER, "pin": PIN}]}, format="json"),
        client.post("/gift-cards/balances", {"items": [{"number": NUMBER, "pin": wrong_pin}]}, format="json"),
        client.get("/gift-cards"),
    ]
    issued_card_redeem(card=issued.card, amount=100, reference="tx-1")
    issued_card_refund(card=issued.card, amount=100, reference="tx-1")

    assert GiftCard.objects.count() == 1  # the flows did run
    stored = every_stored_value()
    assert issued.card.number_hash in stored  # the scan does read this app's rows
    for secret in (NUMBER, PIN, wrong_pin):
        assert secret not in stored
        assert secret not in caplog.text
        for response in responses:
            assert secret not in response.content.decode()
