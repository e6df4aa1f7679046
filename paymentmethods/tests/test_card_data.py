"""A stored method's card is vault data like any other: never in clear in any column, rotated with the keys,
kept until the method, its buyer or the card's retention ends."""

import io
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command

from checkout.tests.factories import CheckoutSessionFactory
from checkout.tests.test_card_data_at_rest import CODE, NEW_KEY, holds_code, raw_rows_by_table
from conftest import TEST_CARD_KEYS
from paymentmethods.models import PaymentMethod
from paymentmethods.services import card_retention_deadline
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.vault.models import VaultedCard, VaultedSecurityCode
from payments.vault.services import vaulted_card_reveal, vaulted_cards_purge_expired

pytestmark = pytest.mark.django_db

NUMBER = "371449635398431"


def test_no_column_holds_the_number(api_client, merchant_account):
    buyer = PaymentMethodFactory(merchant_account=merchant_account, number="4111111111111111").buyer
    client = api_client(scopes=["payment-methods.write"])
    body = {"method": "card", "number": NUMBER, "expiration_date": "12/39", "security_code": "8642"}
    assert client.post("/payment-methods", {**body, "buyer_id": str(buyer.pk)}, format="json").status_code == 201

    for table, rows in raw_rows_by_table().items():
        for row in rows:
            assert not any(NUMBER in str(value) or str(value) == "8642" for value in row), table


def test_a_code_typed_for_it_through_secure_fields_is_in_no_column_in_clear(anonymous_client, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)
    session = CheckoutSessionFactory(merchant_account=merchant_account)
    body = {"payment_method": {"method": "id", "id": str(method.pk), "security_code": CODE}, "postal_code": "94103"}

    response = anonymous_client.put(f"/checkout/sessions/{session.pk}/fields", body, format="json")

    assert response.status_code == 204
    rows = raw_rows_by_table()
    assert len(rows[VaultedSecurityCode._meta.db_table]) == 1  # the scan does read the sealed code's row
    for table, table_rows in rows.items():
        for row in table_rows:
            assert not any(NUMBER in str(value) or holds_code(value) for value in row), table


def test_rotating_the_keys_covers_stored_methods(merchant_account, settings):
    method = PaymentMethodFactory(merchant_account=merchant_account, number=NUMBER)

    settings.CARD_ENCRYPTION_KEYS = [NEW_KEY, *TEST_CARD_KEYS]
    call_command("rotate_card_keys", stdout=io.StringIO())
    settings.CARD_ENCRYPTION_KEYS = [NEW_KEY]

    method.card.refresh_from_db()
    assert method.card.key_id == "rotated"
    assert vaulted_card_reveal(card=method.card).number == NUMBER


def test_a_card_is_kept_until_its_retention_ends_and_the_purge_takes_the_method_with_it(merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account, expiration_month=12, expiration_year=2039)
    deadline = card_retention_deadline(expiration_month=12, expiration_year=2039)
    assert deadline == datetime(2040, 1, 1, tzinfo=UTC) + timedelta(days=90)
    assert method.card.expires_at == deadline

    assert vaulted_cards_purge_expired(now=deadline - timedelta(seconds=1), batch_size=10) == 0
    assert vaulted_cards_purge_expired(now=deadline, batch_size=10) == 1
    assert not PaymentMethod.objects.exists()
    assert not VaultedCard.objects.exists()
