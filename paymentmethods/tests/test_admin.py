"""The admin shows stored cards masked; Support only views; an operator's delete goes through the service."""

import logging

import pytest
from django.contrib.admin.models import DELETION, LogEntry
from django.urls import reverse

from paymentmethods.models import PaymentMethod
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.vault.models import VaultedCard

pytestmark = pytest.mark.django_db

NUMBER = "4111111111111111"


def test_support_sees_the_card_masked_and_cannot_delete(client, staff_login, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    staff_login("Support")

    listing = client.get(reverse("admin:paymentmethods_paymentmethod_changelist"))
    page = client.get(reverse("admin:paymentmethods_paymentmethod_change", args=[method.pk]))
    delete = client.post(reverse("admin:paymentmethods_paymentmethod_delete", args=[method.pk]), {"post": "yes"})

    assert (listing.status_code, page.status_code, delete.status_code) == (200, 200, 403)
    for response in (listing, page):
        assert "411111…1111" in response.content.decode()
        assert NUMBER not in response.content.decode()
    assert PaymentMethod.objects.filter(pk=method.pk).exists()


def test_an_operator_deletes_through_the_service_and_it_is_logged(client, staff_login, merchant_account, caplog):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    staff_login("Payments operator")
    caplog.set_level(logging.INFO, logger="paymentmethods.admin")

    response = client.post(reverse("admin:paymentmethods_paymentmethod_delete", args=[method.pk]), {"post": "yes"})

    assert response.status_code == 302
    assert not PaymentMethod.objects.exists()
    assert not VaultedCard.objects.exists()  # the card data went with it
    assert LogEntry.objects.filter(action_flag=DELETION, object_id=str(method.pk)).exists()
    assert str(method.pk) in caplog.text


def test_the_page_says_what_the_card_is_in_words(client, staff_login, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    VaultedCard.objects.filter(pk=method.card_id).update(
        scheme="visa", card_type="debit", country="FR", issuer_name="Some Bank"
    )
    unknown = PaymentMethodFactory(merchant_account=merchant_account)
    VaultedCard.objects.filter(pk=unknown.card_id).update(card_type=None, country=None, issuer_name=None)
    staff_login("Support")

    page = client.get(reverse("admin:paymentmethods_paymentmethod_change", args=[method.pk])).content.decode()
    unknown_page = client.get(reverse("admin:paymentmethods_paymentmethod_change", args=[unknown.pk])).content.decode()

    assert "Card type and issuer" in page
    assert "Visa debit card issued in France by Some Bank" in page
    assert "card (type —) issued in — by —" in unknown_page  # the table did not say: a dash, never a blank
