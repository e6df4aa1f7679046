"""The checkout session admin: read-only, card shown masked, deletes go through the service."""

import pytest
from django.contrib.auth.models import User

from checkout.models import CheckoutSession
from checkout.tests.factories import CheckoutSessionFactory
from payments.vault.models import VaultedCard

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/checkout/checkoutsession/"


@pytest.fixture
def superuser_client(client):
    client.force_login(User.objects.create_superuser("root", password="x"))
    return client


@pytest.mark.parametrize("page", ["", "{id}/change/"])
def test_support_sees_the_card_masked_and_nothing_more(support_client, merchant_account, page):
    session = CheckoutSessionFactory(with_card=True)
    response = support_client.get(CHANGELIST + page.format(id=session.id))
    assert response.status_code == 200
    html = response.content.decode()
    assert "visa 411111…1111" in html
    assert "4111111111111111" not in html
    assert session.card.encrypted_number not in html
    assert session.card.encrypted_security_code not in html


def test_sessions_cannot_be_added_or_edited(superuser_client, merchant_account):
    session = CheckoutSessionFactory()
    assert superuser_client.get(CHANGELIST + "add/").status_code == 403
    response = superuser_client.post(CHANGELIST + f"{session.id}/change/", {"amount": 1})
    assert response.status_code == 403
    session.refresh_from_db()
    assert session.amount == 1299


def test_delete_removes_the_card_too(superuser_client, merchant_account):
    session = CheckoutSessionFactory(with_card=True)
    response = superuser_client.post(CHANGELIST + f"{session.id}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not CheckoutSession.objects.exists()
    assert not VaultedCard.objects.exists()


def test_bulk_delete_removes_every_card(superuser_client, merchant_account):
    sessions = [CheckoutSessionFactory(with_card=True) for _ in range(2)]
    response = superuser_client.post(
        CHANGELIST,
        {"action": "delete_selected", "_selected_action": [str(s.id) for s in sessions], "post": "yes"},
    )
    assert response.status_code == 302
    assert not CheckoutSession.objects.exists()
    assert not VaultedCard.objects.exists()
