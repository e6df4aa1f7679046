"""After Secure Fields, no column of any table holds the card number or security code in clear, and rotating
the encryption key keeps every stored card usable."""

import io
import logging
import re
import uuid
from datetime import datetime

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from checkout.selectors import checkout_session_card
from checkout.tests.factories import CheckoutSessionFactory
from conftest import TEST_CARD_KEYS
from payments.vault.models import VaultedCard
from payments.vault.services import vaulted_card_reveal

pytestmark = pytest.mark.django_db

NUMBER = "371449635398431"  # amex: stored as BIN 371449 and last 4 8431 only
CODE = "8642"
NEW_KEY = "rotated:" + "cm90YXRlZC1rZXktcm90YXRlZC1rZXktcm90YXRlZC0"  # 32 bytes, base64url


def raw_rows_by_table() -> dict[str, list[tuple]]:
    """Every row of every model's table (auto-created join tables too), read with SQL, not the ORM."""
    tables = {model._meta.db_table for model in apps.get_models(include_auto_created=True)}
    rows = {}
    with connection.cursor() as cursor:
        for table in sorted(tables & set(connection.introspection.table_names())):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608 - names from models
            rows[table] = cursor.fetchall()
    return rows


def _is_uuid_or_timestamp(text: str) -> bool:
    for parse in (uuid.UUID, datetime.fromisoformat):
        try:
            parse(text)
        except ValueError:
            continue
        return True
    return False


def holds_code(value: object) -> bool:
    """Whether a column value carries CODE as digits of its own (not inside a longer number, id or time)."""
    text = value.decode("latin-1") if isinstance(value, bytes | memoryview) else str(value)
    if _is_uuid_or_timestamp(text):
        return False
    return re.search(rf"(?<![0-9A-Za-z]){CODE}(?![0-9A-Za-z])", text) is not None


def test_no_column_of_any_table_holds_the_number_or_code_in_clear(anonymous_client, merchant_account, caplog):
    caplog.set_level(logging.DEBUG)
    session = CheckoutSessionFactory(metadata={"order_id": "order-1"})
    payload = {
        "payment_method": {"method": "card", "number": NUMBER, "expiration_date": "12/39", "security_code": CODE},
        "postal_code": "94103",
    }
    response = anonymous_client.put(f"/checkout/sessions/{session.id}/fields", data=payload, format="json")
    assert response.status_code == 204

    rows = raw_rows_by_table()
    assert len(rows[VaultedCard._meta.db_table]) == 1  # the scan does read the vault's own rows
    scanned = 0
    for table, table_rows in rows.items():
        for row in table_rows:
            for value in row:
                scanned += 1
                assert NUMBER not in str(value), table
                assert not (isinstance(value, bytes | memoryview) and NUMBER.encode() in bytes(value)), table
                assert not holds_code(value), table
    assert scanned > 0
    assert NUMBER not in caplog.text
    assert CODE not in caplog.text


def test_the_code_scan_would_notice_a_clear_code():
    assert holds_code(CODE)
    assert holds_code(f'{{"cvv": "{CODE}"}}')
    assert not holds_code(f"2030-01-01 10:00:00.00{CODE}")
    assert not holds_code(f"4137b1cf-39ac-42a8-{CODE}-1c680d5dab6b")


def test_key_rotation_keeps_every_session_card_readable(anonymous_client, api_client, merchant_account, settings):
    numbers = ["4111111111111111", "5555555555554444", NUMBER]
    sessions = []
    for number in numbers:
        session = CheckoutSessionFactory()
        body = {"payment_method": {"method": "card", "number": number, "expiration_date": "12/39"}}
        assert anonymous_client.put(f"/checkout/sessions/{session.id}/fields", body, format="json").status_code == 204
        sessions.append(session)

    settings.CARD_ENCRYPTION_KEYS = [NEW_KEY, *TEST_CARD_KEYS]
    call_command("rotate_card_keys", "--batch-size", "2", stdout=io.StringIO())
    settings.CARD_ENCRYPTION_KEYS = [NEW_KEY]

    assert set(VaultedCard.objects.values_list("key_id", flat=True)) == {"rotated"}
    client = api_client(scopes=["checkout-sessions.read"])
    for session, number in zip(sessions, numbers, strict=True):
        card = checkout_session_card(merchant_account=merchant_account, session_id=session.id)
        assert vaulted_card_reveal(card=card).number == number
        assert client.get(f"/checkout/sessions/{session.id}").json()["payment_method"]["label"] == number[-4:]
