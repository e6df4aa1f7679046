"""Two buyers paying one link at once, on PostgreSQL: the link's row lock, not luck, makes one payment."""

from __future__ import annotations

import pytest

from checkout.tests.factories import CheckoutSessionFactory
from paymentlinks.embed import page_checkout
from paymentlinks.models import PaymentLink
from paymentlinks.services import LinkNotPayable, payment_link_expire, payment_link_pay
from paymentlinks.tests.factories import PaymentLinkFactory
from paymentlinks.tests.test_embed import _pay, _with_card
from payments.errors import Conflict
from payments.tests.races import at_once
from transactions.models import Transaction

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _buyer(link, session):
    return lambda: payment_link_pay(link=link, checkout_session_id=session.pk, redirect_url=None)


def test_two_buyers_paying_at_once_make_one_payment_and_one_clear_refusal(merchant_account):
    link = PaymentLinkFactory()
    sessions = [CheckoutSessionFactory(merchant_account=merchant_account, with_card=True) for _ in range(2)]

    results = at_once([_buyer(link, session) for session in sessions], refusals=True)

    paid = [result for result in results if isinstance(result, Transaction)]
    refused = [result for result in results if isinstance(result, Exception)]
    assert len(paid) == 1, results
    assert len(refused) == 1
    assert isinstance(refused[0], LinkNotPayable)
    assert refused[0].message in (
        "A payment of this payment link is already under way.",
        "This payment link has already been paid.",
    )
    link.refresh_from_db()
    assert (link.status, link.transaction_id) == ("completed", paid[0].pk)
    assert list(Transaction.objects.filter(payment_link_id=link.pk)) == paid


def test_a_buyer_paying_while_the_merchant_expires_the_link_is_one_or_the_other(merchant_account):
    link = PaymentLinkFactory()
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)

    results = at_once([_buyer(link, session), lambda: payment_link_expire(link=link)], refusals=True)

    link.refresh_from_db()
    paid, expired = results
    if isinstance(paid, Transaction):  # the buyer came first: the merchant is told it is paid (or being paid)
        assert isinstance(expired, Conflict)
        assert link.status == "completed"
    else:  # the merchant came first: nothing was charged
        assert isinstance(paid, LinkNotPayable)
        assert isinstance(expired, PaymentLink)
        assert link.status == "expired"
        assert not Transaction.objects.exists()


def test_two_views_of_the_page_paying_at_once_through_the_api_make_one_payment(merchant_account):
    link = PaymentLinkFactory()
    views = [page_checkout(link) for _ in range(2)]
    for view in views:
        _with_card(view.session)

    responses = at_once([lambda view=view: _pay(view.token, view.session.pk) for view in views])

    assert sorted(response.status_code for response in responses) == [201, 409]
    [refused] = [response.json() for response in responses if response.status_code == 409]
    assert refused["message"] in (
        "A payment of this payment link is already under way.",
        "This payment link has already been paid.",
    )
    [paid] = [response.json() for response in responses if response.status_code == 201]
    link.refresh_from_db()
    assert (link.status, str(link.transaction_id)) == ("completed", paid["id"])
    assert Transaction.objects.filter(payment_link_id=link.pk).count() == 1
