"""Abandoned 3-D Secure challenges end at `approval_expires_at`: the scheduled job fails them once, returns gift card
money and publishes the webhook; a completion and the job, or two workers, end a challenge once (PostgreSQL tests
below). docs/three-d-secure.md."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from giftcards.tests.factories import IssuedGiftCardFactory
from payments.jobs.schedule import scheduled_jobs
from payments.outbox.models import OutboxEvent
from payments.tests.races import at_once
from transactions.models import ThreeDSecureChallenge, Transaction
from transactions.services.challenges import ChallengeGone, challenge_complete, challenges_expire
from transactions.tests.test_challenge_page import form_token
from transactions.tests.test_three_d_secure import authorizations
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _subscribed(settings, merchant_account):
    """A webhook subscription, so state changes are published (nothing is sent: no worker runs here)."""
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    subscription_for(merchant_account, "http://127.0.0.1:9/hook")


def later(seconds: int = 1):
    return timezone.now() + timedelta(seconds=settings.THREE_D_SECURE_CHALLENGE_SECONDS + seconds)


def test_the_approval_window_is_the_setting(challenged, settings):
    settings.THREE_D_SECURE_CHALLENGE_SECONDS = 120
    transaction_id, _ = challenged()
    txn = Transaction.objects.get(pk=transaction_id)
    assert txn.approval_expires_at == ThreeDSecureChallenge.objects.get(transaction_id=transaction_id).expires_at

    assert challenges_expire(now=txn.created_at + timedelta(seconds=110)) == 0
    assert challenges_expire(now=txn.created_at + timedelta(seconds=130)) == 1


def test_an_expired_challenge_fails_with_a_webhook_and_gift_card_money_back(challenged, merchant_account, connector):
    card = IssuedGiftCardFactory(merchant_account=merchant_account, amount=500)
    transaction_id, path = challenged(gift_cards=[{"number": card.number, "pin": card.pin, "amount": 300}])

    assert challenges_expire(now=later()) == 1

    txn = Transaction.objects.get(pk=transaction_id)
    assert (txn.status, txn.error_code) == ("authorization_failed", "incomplete_buyer_approval")
    assert txn.buyer_approval_timedout_at is not None
    assert ThreeDSecureChallenge.objects.get(transaction_id=transaction_id).state == "expired"
    card.refresh_from_db()
    assert card.balance == 500
    names = list(OutboxEvent.objects.filter(target_id=transaction_id).values_list("name", flat=True))
    assert names[-1] == "transaction.failed"
    assert authorizations(connector) == []
    assert Client().get(path).status_code == 410


def test_the_job_ends_a_challenge_once(challenged):
    transaction_id, _ = challenged()

    assert challenges_expire(now=later()) == 1
    assert challenges_expire(now=later()) == 0

    assert OutboxEvent.objects.filter(target_id=transaction_id, name="transaction.failed").count() == 1


def test_a_challenge_still_in_its_window_is_left_alone(challenged):
    transaction_id, _ = challenged()

    assert challenges_expire() == 0
    assert Transaction.objects.get(pk=transaction_id).status == "buyer_approval_pending"


def test_a_completed_or_canceled_challenge_is_not_expired(challenged, api_client, connector):
    completed_id, path = challenged()
    browser = Client()
    browser.post(path, {"form_token": form_token(browser.get(path)), "action": "complete"})
    canceled_id, _ = challenged()
    api_client(scopes=["transactions.write"]).post(f"/transactions/{canceled_id}/cancel")

    assert challenges_expire(now=later()) == 0

    assert Transaction.objects.get(pk=completed_id).status == "authorization_succeeded"
    assert Transaction.objects.get(pk=canceled_id).status == "authorization_voided"
    assert ThreeDSecureChallenge.objects.get(transaction_id=canceled_id).state == "canceled"


def test_the_job_is_scheduled():
    assert scheduled_jobs()["expire-three-d-secure-challenges"].function() is challenges_expire


# --- PostgreSQL: real threads, row locks -----------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_expire_a_challenge_once(challenged):
    transaction_id, _ = challenged()

    results = at_once([lambda: challenges_expire(now=later()), lambda: challenges_expire(now=later())])

    assert sorted(results) == [0, 1]
    assert OutboxEvent.objects.filter(target_id=transaction_id, name="transaction.failed").count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_completions_one_wins(challenged, connector):
    transaction_id, path = challenged()
    token = path.rsplit("/", 1)[1]
    page = Client().get(path)
    sent = form_token(page)

    results = at_once([lambda: challenge_complete(token=token, form_token=sent)] * 4, refusals=True)

    completed = [result for result in results if isinstance(result, tuple)]
    refused = [result for result in results if isinstance(result, ChallengeGone)]
    assert (len(completed), len(refused)) == (1, 3), results
    assert Transaction.objects.get(pk=transaction_id).status == "authorization_succeeded"
    assert len(authorizations(connector)) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_completion_racing_the_expiry_job_ends_the_challenge_once(challenged, connector):
    transaction_id, path = challenged()
    token = path.rsplit("/", 1)[1]
    sent = form_token(Client().get(path))
    # Past its window for the job, still inside it for the buyer's clock: whichever locks first decides.
    ThreeDSecureChallenge.objects.filter(transaction_id=transaction_id).update(
        expires_at=timezone.now() + timedelta(seconds=5)
    )

    results = at_once(
        [
            lambda: challenge_complete(token=token, form_token=sent),
            lambda: challenges_expire(now=timezone.now() + timedelta(seconds=10)),
        ],
        refusals=True,
    )

    status = Transaction.objects.get(pk=transaction_id).status
    if isinstance(results[0], tuple):
        assert (status, results[1]) == ("authorization_succeeded", 0)
    else:
        assert (status, results[1]) == ("authorization_failed", 1)
    assert (
        OutboxEvent.objects.filter(
            target_id=transaction_id, name__in=["transaction.failed", "transaction.authorized"]
        ).count()
        == 1
    )
