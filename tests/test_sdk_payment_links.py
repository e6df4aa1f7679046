"""The official `gr4vy` SDK, unchanged, against a running server: payment links created, read, listed, expired, and
the transaction that paid one found from the link."""

from datetime import UTC, datetime, timedelta

import pytest
from gr4vy import errors, models

from checkout.tests.factories import CheckoutSessionFactory
from paymentlinks.models import PaymentLink
from paymentlinks.services import payment_link_pay

pytestmark = pytest.mark.django_db(transaction=True)


def _create(sdk, **fields):
    return sdk.payment_links.create(**{"amount": 1299, "country": "GB", "currency": "GBP", **fields})


def test_create_get_list_expire(sdk, live_server):
    expires_at = datetime.now(UTC) + timedelta(days=3)
    created = _create(
        sdk,
        expires_at=expires_at,
        merchant_name="ACME Inc.",
        merchant_color="#FF5733",
        merchant_message="Thanks for shopping with us.",
        return_url="https://acme.example.com/thanks",
        locale="en-GB",
        cart_items=[{"name": "Widget", "quantity": 1, "unit_amount": 1299}],
        buyer={"display_name": "Ada", "billing_details": {"email_address": "ada@example.com"}},
        metadata={"order_id": "ORD-1"},
    )
    assert isinstance(created, models.PaymentLink)
    assert (created.amount, created.currency, created.country, created.status) == (1299, "GBP", "GB", "active")
    assert created.url == f"{live_server.url}/l/{created.id}"
    assert created.merchant_color == "#ff5733"
    assert created.cart_items[0].name == "Widget"
    assert created.buyer.display_name == "Ada"

    fetched = sdk.payment_links.get(payment_link_id=created.id)
    assert (fetched.id, fetched.expires_at) == (created.id, created.expires_at)

    other = _create(sdk, amount=500)
    page = sdk.payment_links.list(limit=1)
    assert [item.id for item in page.result.items] == [other.id]
    following = page.next()
    assert [item.id for item in following.result.items] == [created.id]
    assert following.next() is None
    active = sdk.payment_links.list(status=["active"], amount_gte=1000, buyer_search=["ada@"])
    assert [item.id for item in active.result.items] == [created.id]

    assert sdk.payment_links.expire(payment_link_id=created.id) is None
    assert sdk.payment_links.get(payment_link_id=created.id).status == "expired"
    assert [item.id for item in sdk.payment_links.list(status=["expired"]).result.items] == [created.id]


def test_refusals_are_typed(sdk, live_server):
    with pytest.raises(errors.Error400):
        _create(sdk, merchant_banner_url="http://acme.example.com/banner.png")
    with pytest.raises(errors.Error400):
        _create(sdk, installment_count=3)
    with pytest.raises(errors.Error404):
        sdk.payment_links.get(payment_link_id="00000000-0000-4000-8000-00000000dead")
    assert not PaymentLink.objects.exists()


def test_a_paid_link_shows_completed_and_its_transaction_is_found_from_it(sdk, live_server, merchant_account):
    created = _create(sdk, intent="capture")
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)
    payment_link_pay(link=PaymentLink.objects.get(pk=created.id), checkout_session_id=session.pk, redirect_url=None)

    assert sdk.payment_links.get(payment_link_id=created.id).status == "completed"
    with pytest.raises(errors.Error409):
        sdk.payment_links.expire(payment_link_id=created.id)
    transactions = sdk.transactions.list(payment_link_id=created.id).result.items
    assert [(txn.amount, txn.currency, txn.status) for txn in transactions] == [(1299, "GBP", "capture_succeeded")]
