"""The support desk lists links with the state a buyer meets, and leads from a link to its payments."""

from __future__ import annotations

import pytest

from paymentlinks.tests.factories import PaymentLinkFactory
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db
LIST = "/admin/paymentlinks/paymentlink/"


def test_the_desk_lists_links_with_their_state(support_client, merchant_account):
    PaymentLinkFactory(external_identifier="open-one")
    PaymentLinkFactory(lapsed=True, external_identifier="lapsed-one")
    PaymentLinkFactory(completed=True, external_identifier="paid-one")

    response = support_client.get(LIST)

    assert response.status_code == 200
    html = response.content.decode()
    for reference, state in (("open-one", "Active"), ("lapsed-one", "Expired"), ("paid-one", "Completed")):
        row = html[html.index(reference) - 600 : html.index(reference)]
        assert state in row, reference


def test_a_links_page_leads_to_its_transactions(support_client, merchant_account):
    link = PaymentLinkFactory()
    paid = TransactionFactory(merchant_account=merchant_account, payment_link_id=link.pk, captured=True)
    other = TransactionFactory(merchant_account=merchant_account)
    link.status, link.transaction_id = "completed", paid.pk
    link.save()

    page = support_client.get(f"{LIST}{link.pk}/change/").content.decode()
    assert f"/admin/transactions/transaction/{paid.pk}/change/" in page
    listed = support_client.get(f"/admin/transactions/transaction/?payment_link_id={link.pk}")

    assert listed.status_code == 200
    assert str(paid.pk) in listed.content.decode()
    assert str(other.pk) not in listed.content.decode()
