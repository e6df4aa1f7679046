"""What the desk says of a buyer: billing details that exist are never "None given", and two buyers with one name
and email address are told apart in the search results."""

import datetime as dt

import pytest
from django.urls import reverse

from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory

pytestmark = pytest.mark.django_db


def test_billing_with_a_name_and_email_but_no_address_is_not_none_given(support_client, merchant_account):
    buyer = BuyerFactory(
        merchant_account=merchant_account,
        billing_details={"first_name": "Ada", "last_name": "Obi", "email_address": "ada@example.com"},
    )

    html = support_client.get(reverse("admin:buyers_buyer_profile", args=[buyer.pk])).content.decode()
    addresses = html.split('id="addresses"')[1].split("</section>")[0]

    assert "None given" not in addresses
    assert "No billing address; the billing name and email address are under Contact." in addresses


def test_two_buyers_with_one_name_and_email_are_told_apart_in_search(support_client, merchant_account):
    same = {"display_name": "Ada Obi", "billing_details": {"email_address": "ada@example.com"}}
    first = BuyerFactory(merchant_account=merchant_account, external_identifier="shop-1", **same)
    second = BuyerFactory(merchant_account=merchant_account, external_identifier=None, **same)
    Buyer.objects.filter(pk=first.pk).update(created_at=dt.datetime(2026, 3, 1, tzinfo=dt.UTC))

    response = support_client.get(reverse("admin:index"), {"q": "ada@example.com"})
    html = response.content.decode()

    assert "shop-1" in html
    assert "since 1 Mar 2026" in html
    assert str(first.pk).split("-")[0] in html
    assert str(second.pk).split("-")[0] in html
