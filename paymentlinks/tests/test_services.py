"""Paying a link: claimed before any money moves, settled by how its transaction ended; expiry by time and by the
merchant, each with its webhook."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from checkout.tests.factories import CheckoutSessionFactory
from paymentlinks.models import PaymentLink
from paymentlinks.services import (
    LinkNotPayable,
    payment_link_claim,
    payment_link_expire,
    payment_link_pay,
    payment_link_settle,
    payment_link_sync,
    payment_links_tend,
)
from paymentlinks.tests.factories import PaymentLinkFactory
from payments.errors import NotFound
from payments.outbox.models import OutboxEvent
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

DECLINED = "4000000000000002"


@pytest.fixture
def subscribed(merchant_account, settings):
    """A webhook subscription, so the account's events are written to the outbox."""
    from webhooks.tests.factories import subscription_for

    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    return subscription_for(merchant_account, "http://127.0.0.1:9/hook")  # nothing is sent: no worker runs here


def _session(merchant_account, **card):
    return CheckoutSessionFactory(merchant_account=merchant_account, with_card=True, **card)


def _events(link) -> list[str]:
    return list(
        OutboxEvent.objects.filter(target_id=str(link.pk)).order_by("created_at").values_list("name", flat=True)
    )


def test_paying_a_link_makes_its_transaction_from_the_links_order_and_completes_it(merchant_account, subscribed):
    link = PaymentLinkFactory(
        amount=1800,
        currency="EUR",
        country="DE",
        intent="capture",
        external_identifier="invoice-7",
        metadata={"order_id": "7"},
        cart_items=[{"name": "Widget", "quantity": 2, "unit_amount": 900}],
        buyer={"display_name": "Ada", "billing_details": {"email_address": "ada@example.com"}},
    )

    txn = payment_link_pay(link=link, checkout_session_id=_session(merchant_account).pk, redirect_url=None)

    link.refresh_from_db()
    assert (link.status, link.transaction_id) == ("completed", txn.pk)
    assert (txn.amount, txn.currency, txn.country, txn.status) == (1800, "EUR", "DE", "capture_succeeded")
    assert (txn.payment_link_id, txn.external_identifier, txn.metadata) == (link.pk, "invoice-7", {"order_id": "7"})
    assert txn.buyer_details["display_name"] == "Ada"
    assert "payment-link.completed" in _events(link)


def test_a_declined_payment_leaves_the_link_payable_and_keeps_its_attempt(merchant_account):
    link = PaymentLinkFactory()

    txn = payment_link_pay(
        link=link, checkout_session_id=_session(merchant_account, card__number=DECLINED).pk, redirect_url=None
    )

    link.refresh_from_db()
    assert txn.status == "authorization_declined"
    assert (link.status, link.transaction_id) == ("active", None)
    assert list(Transaction.objects.filter(payment_link_id=link.pk)) == [txn]
    second = payment_link_pay(link=link, checkout_session_id=_session(merchant_account).pk, redirect_url=None)
    link.refresh_from_db()
    assert (link.status, link.transaction_id) == ("completed", second.pk)


def test_a_refused_request_gives_the_link_back(merchant_account):
    link = PaymentLinkFactory()

    with pytest.raises(NotFound):
        payment_link_pay(link=link, checkout_session_id=uuid.uuid4(), redirect_url=None)

    link.refresh_from_db()
    assert (link.status, link.transaction_id) == ("active", None)
    assert not Transaction.objects.exists()


@pytest.mark.parametrize("trait", ["completed", "processing", "expired", "lapsed"])
def test_a_link_that_is_not_active_is_never_paid(merchant_account, trait):
    link = PaymentLinkFactory(**{trait: True})

    with pytest.raises(LinkNotPayable):
        payment_link_pay(link=link, checkout_session_id=_session(merchant_account).pk, redirect_url=None)

    assert not Transaction.objects.exists()


def test_only_the_claiming_transaction_settles_the_link():
    link = PaymentLinkFactory()
    claimer = uuid.uuid4()
    payment_link_claim(link_id=link.pk, transaction_id=claimer)

    payment_link_settle(link_id=link.pk, transaction_id=uuid.uuid4(), succeeded=True)

    link.refresh_from_db()
    assert (link.status, link.transaction_id) == ("processing", claimer)


def test_a_fresh_claim_without_its_transaction_is_left_alone_and_an_old_one_given_back():
    link = PaymentLinkFactory()
    payment_link_claim(link_id=link.pk, transaction_id=uuid.uuid4())

    assert payment_link_sync(link=PaymentLink.objects.get(pk=link.pk)).status == "processing"

    PaymentLink.objects.filter(pk=link.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    assert payment_link_sync(link=PaymentLink.objects.get(pk=link.pk)).status == "active"


def test_expire_publishes_its_webhook_carrying_the_link_as_the_api_shows_it(merchant_account, subscribed):
    from payments.outbox import outbox_render_target

    link = PaymentLinkFactory()

    payment_link_expire(link=link)

    assert _events(link) == ["payment-link.expired"]
    event = OutboxEvent.objects.get(target_id=str(link.pk))
    rendered = outbox_render_target(target_type=event.target_type, target_id=event.target_id)
    assert (rendered["type"], rendered["id"], rendered["status"]) == ("payment-link", str(link.pk), "expired")


def test_the_job_records_lapsed_links_expired_once_and_leaves_the_rest(merchant_account, subscribed):
    lapsed = PaymentLinkFactory(lapsed=True)
    open_ = PaymentLinkFactory(expires_at=timezone.now() + timedelta(days=1))
    endless = PaymentLinkFactory()

    assert payment_links_tend()["expired"] == 1
    assert payment_links_tend()["expired"] == 0

    statuses = dict(PaymentLink.objects.values_list("pk", "status"))
    assert (statuses[lapsed.pk], statuses[open_.pk], statuses[endless.pk]) == ("expired", "active", "active")
    assert _events(lapsed) == ["payment-link.expired"]


def test_the_job_settles_a_link_whose_payment_ended_later(merchant_account):
    from transactions.tests.factories import TransactionFactory

    link = PaymentLinkFactory()
    txn_id = uuid.uuid4()
    payment_link_claim(link_id=link.pk, transaction_id=txn_id)
    TransactionFactory(pk=txn_id, merchant_account=merchant_account, payment_link_id=link.pk, authorized=True)

    assert payment_links_tend()["settled"] == 1
    link.refresh_from_db()
    assert link.status == "completed"
