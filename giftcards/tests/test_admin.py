"""The gift card admin: last 4 digits only, money read-only, deactivation through the service."""

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from giftcards.models import GiftCardIssuance, IssuedGiftCard
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:giftcards_issuedgiftcard_changelist")


def staff(client, *codenames: str):
    user = User.objects.create_user("staff", password="x", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client.force_login(user)
    return user


@pytest.fixture
def support(client):
    return staff(client, "view_issuedgiftcard", "view_giftcard", "view_ledgerentry")


def test_changelist_and_page_show_only_the_last_4(client, support, merchant_account):
    card = IssuedGiftCardFactory()

    listing = client.get(CHANGELIST).content.decode()
    page = client.get(reverse("admin:giftcards_issuedgiftcard_change", args=[card.pk])).content.decode()

    for html in (listing, page):
        assert f"•••• {card.last4}" in html
        assert card.number not in html
        assert card.number[:9] not in html
        assert card.number_hash not in html
        assert card.pin_hash not in html
    assert "ledger entries" in page.lower()  # the ledger, read-only, on the card's page
    assert "issue +5000" in page
    assert 'name="balance"' not in page


def test_stored_cards_show_only_the_last_4(client, support, merchant_account):
    stored = GiftCardFactory()

    html = client.get(reverse("admin:giftcards_giftcard_changelist")).content.decode()

    assert f"•••• {stored.issued_card.last4}" in html
    assert stored.issued_card.number not in html


def test_search_by_full_number_finds_the_card_without_storing_it(client, support, merchant_account):
    card, other = IssuedGiftCardFactory(), IssuedGiftCardFactory()

    html = client.get(CHANGELIST, {"q": card.number}).content.decode()

    assert reverse("admin:giftcards_issuedgiftcard_change", args=[card.pk]) in html
    assert reverse("admin:giftcards_issuedgiftcard_change", args=[other.pk]) not in html


def test_issued_cards_cannot_be_added_changed_or_deleted(client, merchant_account):
    staff(client, "view_issuedgiftcard", "add_issuedgiftcard", "change_issuedgiftcard", "delete_issuedgiftcard")
    card = IssuedGiftCardFactory()

    assert client.get(reverse("admin:giftcards_issuedgiftcard_add")).status_code == 403
    assert (
        client.post(reverse("admin:giftcards_issuedgiftcard_delete", args=[card.pk]), {"post": "yes"}).status_code
        == 403
    )
    client.post(reverse("admin:giftcards_issuedgiftcard_change", args=[card.pk]), {"balance": "999999"})
    card.refresh_from_db()
    assert card.balance == 5000


def test_deactivate_action_calls_the_service_and_is_logged(client, merchant_account):
    staff(client, "view_issuedgiftcard", "deactivate_issuedgiftcard")
    card = IssuedGiftCardFactory()

    response = client.post(CHANGELIST, {"action": "deactivate", "_selected_action": [card.pk]})

    assert response.status_code == 302
    card.refresh_from_db()
    assert (card.status, card.balance) == ("inactive", 5000)
    assert LogEntry.objects.get().change_message == "Deactivated."


def test_deactivate_needs_its_permission(client, support, merchant_account):
    card = IssuedGiftCardFactory()

    client.post(CHANGELIST, {"action": "deactivate", "_selected_action": [card.pk]})

    card.refresh_from_db()
    assert card.status == IssuedGiftCard.Status.ACTIVE
    assert not LogEntry.objects.exists()


def test_issuances_show_their_terms_never_the_sealed_card(client, api_client, merchant_account):
    writer = api_client(scopes=["gift-cards.write"])
    body = {"theme": "birthday", "amount": 2500, "currency": "EUR"}
    assert writer.post("/gift-cards/issuances", body, format="json").status_code == 201
    issuance = GiftCardIssuance.objects.get()
    staff(client, "view_giftcardissuance")

    listing = client.get(reverse("admin:giftcards_giftcardissuance_changelist")).content.decode()
    page = client.get(reverse("admin:giftcards_giftcardissuance_change", args=[issuance.pk])).content.decode()

    for html in (listing, page):
        assert "birthday" in html
        assert "waiting" in html
        assert issuance.sealed_secret not in html
