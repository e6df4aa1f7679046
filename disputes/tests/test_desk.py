"""The support desk: the queue of open disputes by due date (amount, reason, buyer, the transaction in one click), a
dispute badge and what lost disputes took back on the transaction's page, and a buyer's disputes on the buyer's page;
each page in a fixed number of queries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from buyers.tests.factories import BuyerFactory
from disputes.tests.factories import T0, DisputeFactory
from payments.choices import DisputeState
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db
QUEUE = "/admin/disputes/dispute/"
S = DisputeState
# session, user, user and group permissions, merchant accounts (for the filter), capped count, page (with
# transactions and services)
QUEUE_QUERIES = 7


def _disputed(merchant_account, *, days: int, state: str = S.NEEDS_RESPONSE, **txn):
    payment = TransactionFactory(merchant_account=merchant_account, captured=True, **txn)
    return DisputeFactory(transaction=payment, state=state, due_at=T0 + timedelta(days=days))


def test_the_queue_lists_open_disputes_soonest_due_first(support_client, merchant_account):
    later = _disputed(merchant_account, days=9, buyer_email_address="later@example.com", amount=4200)
    sooner = _disputed(
        merchant_account, days=2, buyer_details={"id": None, "display_name": "Ada Lovelace"}, amount=1500
    )
    closed = _disputed(merchant_account, days=1, state=S.WON, buyer_email_address="won@example.com")

    html = support_client.get(QUEUE).content.decode()

    assert html.index("Ada Lovelace") < html.index("later@example.com")
    assert "won@example.com" not in html
    for shown in ("USD 15.00", "USD 42.00", "fraudulent", "22 Nov 2026, 12:00:00 UTC", "Dispute: answer due"):
        assert shown in html
    for dispute in (sooner, later):
        assert reverse("admin:transactions_transaction_change", args=[dispute.transaction_id]) in html
    closed_page = support_client.get(QUEUE, {"open": "no"}).content.decode()
    assert "won@example.com" in closed_page
    assert reverse("admin:transactions_transaction_change", args=[closed.transaction_id]) in closed_page


def test_the_queue_costs_a_fixed_number_of_queries(support_client, merchant_account, django_assert_num_queries):
    _disputed(merchant_account, days=1)
    support_client.get(QUEUE)
    for days in range(2, 30):
        _disputed(merchant_account, days=days)

    with django_assert_num_queries(QUEUE_QUERIES):
        assert support_client.get(QUEUE).status_code == 200


def test_the_transaction_page_badges_the_dispute_and_shows_what_it_took_back(support_client, merchant_account):
    lost = _disputed(merchant_account, days=1, state=S.LOST, amount=10000)
    plain = TransactionFactory(merchant_account=merchant_account, captured=True)

    page = support_client.get(reverse("admin:transactions_transaction_change", args=[lost.transaction_id]))
    other = support_client.get(reverse("admin:transactions_transaction_change", args=[plain.pk]))

    html = page.content.decode()
    assert 'data-badge="dispute-lost"' in html
    assert "USD 100.00 taken back" in html
    assert f"?transaction__id__exact={lost.transaction_id}" in html
    assert 'data-badge="dispute-' not in other.content.decode()


def test_the_buyer_page_lists_the_buyers_disputes(support_client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    dispute = _disputed(merchant_account, days=3, buyer=buyer)
    _disputed(merchant_account, days=3)  # someone else's

    html = support_client.get(f"/admin/buyers/buyer/{buyer.pk}/profile/").content.decode()

    assert "Disputes (1)" in html
    assert 'data-badge="dispute-needs_response"' in html
    assert "answer due 23 Nov 2026" in html
    listed = support_client.get(QUEUE, {"transaction__buyer__id__exact": str(buyer.pk)})
    assert listed.status_code == 200
    assert reverse("admin:transactions_transaction_change", args=[dispute.transaction_id]) in listed.content.decode()


def test_the_transaction_page_says_what_an_open_dispute_holds_and_a_refund_of_it_says_why_not(
    client, merchant_account, staff_login
):
    from payments.staff.roles import PAYMENTS_OPERATOR

    held = _disputed(merchant_account, days=3, amount=1500)
    staff_login(PAYMENTS_OPERATOR)
    page = reverse("admin:transactions_transaction_change", args=[held.transaction_id])
    refund = reverse("admin:transactions_transaction_refund", args=[held.transaction_id])

    html = client.get(page).content.decode()
    assert "USD 15.00 held by an open dispute until the bank decides it: not refundable" in html
    assert f'href="{refund}"' not in html  # nothing is left to refund: no button
    form = client.get(refund).content.decode()
    assert "USD 15.00 is held by open dispute dp_" in form
    refused = client.post(refund, {"amount": "", "reason": "Customer asked"}, follow=True).content.decode()
    assert f"Nothing was done. Dispute {held.processor_dispute_id} is open and holds 1500" in refused
    assert TransactionFactory._meta.model.objects.get(pk=held.transaction_id).refunded_amount == 0


def test_a_refused_dispute_notification_is_on_the_transaction_timeline(support_client, merchant_account):
    from django.db import transaction

    from disputes.services import dispute_apply
    from disputes.tests.factories import fact
    from transactions.models import Transaction

    payment = TransactionFactory(merchant_account=merchant_account, captured=True)
    with transaction.atomic():
        locked = Transaction.objects.select_for_update().get(pk=payment.pk)
        dispute_apply(txn=locked, payment_service_id=payment.payment_service_id, fact=fact(currency="JPY"), noted={})

    html = support_client.get(reverse("admin:transactions_transaction_change", args=[payment.pk])).content.decode()

    assert "dispute refused" in html
    assert "the dispute dp_1 is in JPY (1299 in minor units), the payment in USD" in html
