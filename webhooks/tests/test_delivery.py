"""Deliveries end to end: a state change writes its event, a task turns it into signed POSTs that a real local
receiver checks with the official SDK's `verify_webhook`; failures are retried on the schedule (the test holds
the clock), every attempt is recorded, and one delivery is never sent twice at once."""

import logging
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from gr4vy.webhooks import verify_webhook

from payments.errors import Conflict
from payments.outbox.models import OutboxEvent
from transactions.services.actions import transaction_capture, transaction_void
from transactions.services.refunds import refund_create
from transactions.services.state import SYSTEM
from transactions.tests.factories import TransactionFactory
from webhooks.models import DeliveryState, WebhookAttempt, WebhookDelivery
from webhooks.services.deliveries import (
    attempt_delivery,
    webhook_delivery_attempt,
    webhook_delivery_resend,
    webhook_subscriptions_report_failing,
)
from webhooks.services.subscriptions import (
    webhook_subscription_delete,
    webhook_subscription_rotate_secret,
    webhook_subscription_secret,
)
from webhooks.tasks import webhooks_sweep
from webhooks.tests.conftest import run_tasks
from webhooks.tests.factories import subscription_for
from webhooks.tests.receiver import running_receiver

pytestmark = pytest.mark.django_db

TOLERANCE = 300


def _verify(received, secret: str) -> None:
    verify_webhook(
        received.body,
        secret,
        received.headers.get("X-Gr4vy-Webhook-Signatures"),
        received.headers.get("X-Gr4vy-Webhook-Timestamp"),
        TOLERANCE,
    )


@pytest.fixture
def authorized(merchant_account):
    return TransactionFactory(merchant_account=merchant_account, authorized=True)


def _capture(txn):
    return transaction_capture(txn=txn, actor=SYSTEM).transaction


def test_a_capture_is_delivered_signed_as_upstream_signs(merchant_account, receiver, authorized):
    subscription = subscription_for(merchant_account, receiver.url)
    secret = webhook_subscription_secret(subscription)

    _capture(authorized)
    run_tasks()

    names = [body["name"] for body in receiver.bodies()]
    assert names == ["transaction.capture-pending", "transaction.captured"]
    for received in receiver.received:
        _verify(received, secret)
        assert received.headers["Content-Type"] == "application/json"
        assert received.headers["X-Gr4vy-Webhook-Id"] in {str(d.pk) for d in WebhookDelivery.objects.all()}
    captured = receiver.bodies()[1]
    assert {key: captured[key] for key in ("type", "merchant_account_id", "gr4vy_id", "environment")} == {
        "type": "event",
        "merchant_account_id": "default",
        "gr4vy_id": "payments",
        "environment": "sandbox",
    }
    assert (captured["target"]["type"], captured["target"]["id"]) == ("transaction", str(authorized.pk))
    assert captured["target"]["status"] == "capture_succeeded"
    assert set(WebhookDelivery.objects.values_list("state", flat=True)) == {DeliveryState.DELIVERED}
    assert WebhookAttempt.objects.filter(succeeded=True).count() == 2


def test_a_tampered_body_or_an_old_timestamp_fails_verification(merchant_account, receiver, authorized):
    subscription = subscription_for(merchant_account, receiver.url)
    _capture(authorized)
    run_tasks()
    received = receiver.received[-1]
    secret = webhook_subscription_secret(subscription)

    with pytest.raises(ValueError, match="No matching signature"):
        verify_webhook(
            received.body.replace("capture_succeeded", "authorization_voided"),
            secret,
            received.headers["X-Gr4vy-Webhook-Signatures"],
            received.headers["X-Gr4vy-Webhook-Timestamp"],
            TOLERANCE,
        )
    with pytest.raises(ValueError, match="No matching signature"):
        _verify(received, "not-the-secret")

    # An attempt signed an hour ago (the clock held back) is refused as too old.
    delivery = WebhookDelivery.objects.order_by("created_at").last()
    webhook_delivery_resend(delivery=delivery, requested_by="test", now=timezone.now() - timedelta(hours=1))
    webhook_delivery_attempt(delivery_id=delivery.pk, now=timezone.now() - timedelta(hours=1))
    with pytest.raises(ValueError, match="Timestamp too old"):
        _verify(receiver.received[-1], secret)


def test_during_a_rotation_both_secrets_verify_and_after_it_only_the_new_one(merchant_account, receiver, authorized):
    subscription = subscription_for(merchant_account, receiver.url)
    old = webhook_subscription_secret(subscription)
    subscription = webhook_subscription_rotate_secret(subscription=subscription, delta_minutes=30)
    new = webhook_subscription_secret(subscription)

    _capture(authorized)
    run_tasks()
    during = receiver.received[-1]
    assert len(during.headers["X-Gr4vy-Webhook-Signatures"].split(",")) == 2
    _verify(during, old)
    _verify(during, new)

    delivery = WebhookDelivery.objects.order_by("created_at").last()
    later = timezone.now() + timedelta(minutes=31)
    webhook_delivery_resend(delivery=delivery, requested_by="test", now=later)
    webhook_delivery_attempt(delivery_id=delivery.pk, now=later)
    after = receiver.received[-1]
    assert len(after.headers["X-Gr4vy-Webhook-Signatures"].split(",")) == 1
    verify_webhook(
        after.body, new, after.headers["X-Gr4vy-Webhook-Signatures"], after.headers["X-Gr4vy-Webhook-Timestamp"], 0
    )
    with pytest.raises(ValueError, match="No matching signature"):
        verify_webhook(
            after.body, old, after.headers["X-Gr4vy-Webhook-Signatures"], after.headers["X-Gr4vy-Webhook-Timestamp"], 0
        )


def test_basic_authentication_is_sent(merchant_account, receiver, authorized):
    from webhooks.services.subscriptions import BasicAuthentication

    subscription_for(merchant_account, receiver.url, authentication=BasicAuthentication("shop", "pa:ss"))
    _capture(authorized)
    run_tasks()

    assert receiver.received[0].headers["Authorization"] == "Basic c2hvcDpwYTpzcw=="


def test_refunds_voids_and_gift_card_balances_notify(merchant_account, receiver):
    from django.db import transaction

    from giftcards.services import issued_card_create, issued_card_redeem, issued_card_refund

    subscription_for(merchant_account, receiver.url)
    refund_create(txn=TransactionFactory(merchant_account=merchant_account, captured=True), actor=SYSTEM, amount=100)
    transaction_void(txn=TransactionFactory(merchant_account=merchant_account, authorized=True), actor=SYSTEM)
    card = issued_card_create(merchant_account=merchant_account, amount=1000, currency="USD").card
    with transaction.atomic():
        issued_card_redeem(card=card, amount=300, reference="order-1")
        issued_card_refund(card=card, amount=100, reference="order-1")
    run_tasks()

    names = sorted(body["name"] for body in receiver.bodies())
    assert names == sorted(
        [
            "refund.pending",
            "refund.succeeded",
            "transaction.void-pending",
            "transaction.voided",
            "gift-card.redeemed",
            "gift-card.refunded",
        ]
    )
    balances = [body["target"] for body in receiver.bodies() if body["name"].startswith("gift-card.")]
    # Each notification shows the balance its own movement left, in upstream's GiftCardSummary shape.
    assert sorted(target["balance"] for target in balances) == [700, 800]
    assert {target["type"] for target in balances} == {"gift-card"}
    refund = next(body["target"] for body in receiver.bodies() if body["name"] == "refund.succeeded")
    assert (refund["type"], refund["amount"]) == ("refund", 100)


def test_without_an_active_subscription_nothing_is_written(merchant_account, authorized):
    subscription_for(merchant_account, "http://127.0.0.1:9/x", active=False)

    _capture(authorized)

    assert not OutboxEvent.objects.exists()


def test_the_event_commits_with_its_change_or_not_at_all(merchant_account, receiver, authorized):
    from django.db import transaction

    from payments.outbox import outbox_publish

    subscription_for(merchant_account, receiver.url)

    def capture_then_fail():
        with transaction.atomic():
            _capture(authorized)
            raise ZeroDivisionError  # the change fails after its events were written

    with pytest.raises(ZeroDivisionError):
        capture_then_fail()

    assert not OutboxEvent.objects.exists()
    # Outside a transaction an event could commit without its change: refused.
    connection = transaction.get_connection()
    saved, connection.in_atomic_block = connection.in_atomic_block, False
    try:
        with pytest.raises(RuntimeError):
            outbox_publish(merchant_account_id="default", name="x", target_type="transaction", target_id="1")
    finally:
        connection.in_atomic_block = saved


# --- retries, with the clock held by the test ---------------------------------------------------------------


@pytest.fixture
def failing(merchant_account, authorized):
    """A subscription whose receiver answers as the test says, and one delivery made but not yet attempted."""

    def make(behaviour: str):
        context = running_receiver(behaviour=behaviour, hang_seconds=1.5)
        receiver = context.__enter__()
        subscription_for(merchant_account, receiver.url)
        transaction_void(txn=authorized, actor=SYSTEM)
        OutboxEvent.objects.exclude(name="transaction.voided").delete()
        event = OutboxEvent.objects.get()
        from webhooks.services.deliveries import webhook_event_dispatch

        (delivery,) = webhook_event_dispatch(event_id=event.pk)
        return receiver, delivery, context

    contexts = []

    def tracked(behaviour):
        receiver, delivery, context = make(behaviour)
        contexts.append(context)
        return receiver, delivery

    yield tracked
    for context in contexts:
        context.__exit__(None, None, None)


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [
        ("500", "The receiver answered HTTP 500."),
        ("hang", "Timed out."),
        ("close", "The receiver closed the connection without a valid answer."),
    ],
    ids=["answers-500", "hangs-past-the-timeout", "closes-the-connection"],
)
def test_failures_are_retried_on_the_backoff_schedule_and_recorded(settings, failing, behaviour, error):
    settings.WEBHOOK_RETRY_BASE_SECONDS = 30
    receiver, delivery = failing(behaviour)
    start = timezone.now()
    moments = []
    now = start
    for number in range(1, 4):
        outcome = webhook_delivery_attempt(delivery_id=delivery.pk, now=now)
        assert outcome is not None
        attempt = outcome.attempt
        assert (attempt.number, attempt.succeeded, attempt.error) == (number, False, error)
        delay = (outcome.retry_at - now).total_seconds()
        base = 30 * 2 ** (number - 1)
        assert 0.75 * base <= delay <= 1.25 * base, (number, delay)
        # Not due yet: nothing is sent.
        assert webhook_delivery_attempt(delivery_id=delivery.pk, now=outcome.retry_at - timedelta(seconds=1)) is None
        moments.append(outcome.retry_at)
        now = outcome.retry_at
    assert len(receiver.received) == 3
    if behaviour != "hang":  # a hung handler sleeps on after the sender has given up and moved on
        assert receiver.max_in_flight == 1
    timed = WebhookAttempt.objects.filter(delivery=delivery).order_by("number")
    assert [a.number for a in timed] == [1, 2, 3]
    if behaviour == "hang":
        assert all(a.duration_ms >= 400 for a in timed)  # held until the (test) timeout of 0.5 s
    if behaviour == "500":
        assert timed[0].status_code == 500
        assert timed[0].response_excerpt == '{"error":"boom"}'

    receiver.behaviour = "ok"
    outcome = webhook_delivery_attempt(delivery_id=delivery.pk, now=now)
    assert outcome.attempt.succeeded
    assert outcome.retry_at is None
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempt_count, delivery.subscription.failing_since) == ("delivered", 4, None)


def test_after_the_retry_window_a_delivery_is_given_up_and_reported(settings, failing, caplog):
    settings.WEBHOOK_RETRY_BASE_SECONDS = 3600
    settings.WEBHOOK_RETRY_MAX_DELAY_SECONDS = 24 * 3600
    receiver, delivery = failing("500")
    now = timezone.now()
    while (outcome := webhook_delivery_attempt(delivery_id=delivery.pk, now=now)) and outcome.retry_at:
        now = outcome.retry_at
    delivery.refresh_from_db()

    assert delivery.state == DeliveryState.EXPIRED
    assert now <= delivery.retry_until
    assert 8 <= delivery.attempt_count <= 12  # hourly, doubling, capped at a day: about ten tries in seven days
    assert "given up" in caplog.text

    with caplog.at_level(logging.WARNING, logger="webhooks.services"):
        reported = webhook_subscriptions_report_failing(now=now)
    assert [subscription.pk for subscription in reported] == [delivery.subscription_id]
    assert "has failed every attempt since" in caplog.text

    # An operator sends it again: a fresh window, recorded as theirs.
    receiver.behaviour = "ok"
    webhook_delivery_resend(delivery=delivery, requested_by="support-1", now=now)
    outcome = webhook_delivery_attempt(delivery_id=delivery.pk, now=now)
    assert outcome.attempt.succeeded
    assert outcome.attempt.requested_by == "support-1"


@pytest.mark.django_db(transaction=True)
def test_one_delivery_is_never_sent_twice_at_once(failing):
    receiver, delivery = failing("block")
    results = []
    first = threading.Thread(target=lambda: results.append(webhook_delivery_attempt(delivery_id=delivery.pk)))
    first.start()
    assert receiver.arrived.wait(5)

    # While the first attempt is in flight, the delivery is held: another worker gets nothing.
    assert webhook_delivery_attempt(delivery_id=delivery.pk) is None
    assert webhook_delivery_attempt(delivery_id=delivery.pk, now=timezone.now() + timedelta(seconds=30)) is None
    receiver.release.set()
    first.join(10)

    assert len(receiver.received) == 1
    assert results[0].attempt.succeeded


@pytest.mark.django_db(transaction=True)
def test_deleting_the_subscription_during_an_attempt_ends_the_attempt_quietly(failing, caplog):
    receiver, delivery = failing("block")
    outcomes, errors = [], []

    def attempt():
        try:
            outcomes.append(attempt_delivery.call(str(delivery.pk)))
        except Exception as exc:  # the test reports whatever the task raised
            errors.append(exc)
        finally:
            connection.close()

    sending = threading.Thread(target=attempt)
    with caplog.at_level(logging.INFO):
        sending.start()
        assert receiver.arrived.wait(5)
        webhook_subscription_delete(subscription=delivery.subscription)
        receiver.release.set()
        sending.join(10)

    assert (errors, outcomes) == ([], [None])
    kept = WebhookDelivery.objects.get()
    # It reached the receiver, which said so: delivered, and the attempt is kept with it.
    assert (kept.subscription_id, kept.state, kept.next_attempt_at) == (None, DeliveryState.DELIVERED, None)
    assert [attempt.succeeded for attempt in WebhookAttempt.objects.all()] == [True]
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert "its subscription was deleted during the attempt" in caplog.text


def test_deleting_a_subscription_keeps_its_deliveries_until_their_retention(settings, failing):
    receiver, delivery = failing("500")
    webhook_delivery_attempt(delivery_id=delivery.pk)
    subscription = delivery.subscription
    subscription_id, url = subscription.pk, subscription.url

    webhook_subscription_delete(subscription=subscription)

    kept = WebhookDelivery.objects.get(pk=delivery.pk)
    assert (kept.subscription_id, kept.former_subscription_id, kept.former_subscription_url) == (
        None,
        subscription_id,
        url,
    )
    assert (kept.state, kept.next_attempt_at) == (DeliveryState.CANCELED, None)  # nothing more is sent
    assert WebhookAttempt.objects.filter(delivery=kept).count() == 1
    assert webhook_delivery_attempt(delivery_id=kept.pk, now=timezone.now() + timedelta(days=1)) is None
    assert url in str(kept)
    with pytest.raises(Conflict):
        webhook_delivery_resend(delivery=kept, requested_by="agent")
    assert len(receiver.received) == 1

    # The purge of old events removes it with its attempts once their retention is over.
    from payments.outbox import outbox_events_purge_expired

    later = timezone.now() + timedelta(days=settings.OUTBOX_RETENTION_DAYS + 1)
    assert outbox_events_purge_expired(now=later, batch_size=100) >= 1
    assert not WebhookDelivery.objects.exists()
    assert not WebhookAttempt.objects.exists()


def test_the_sweep_picks_up_lost_tasks_and_dead_workers(settings, merchant_account, receiver, authorized):
    from django_tasks_db.models import DBTaskResult

    settings.WEBHOOK_SWEEP_GRACE_SECONDS = 0
    subscription_for(merchant_account, receiver.url)
    transaction_void(txn=authorized, actor=SYSTEM)
    DBTaskResult.objects.all().delete()  # the dispatch tasks were lost

    assert webhooks_sweep(now=timezone.now() + timedelta(seconds=1)) == (2, 0)
    run_tasks(only="dispatch_event")
    DBTaskResult.objects.all().delete()  # the attempt tasks are lost too
    assert receiver.received == []
    # A worker died holding one delivery: its lease must run out before anyone else may send it.
    held = WebhookDelivery.objects.first()
    WebhookDelivery.objects.filter(pk=held.pk).update(leased_until=timezone.now() + timedelta(seconds=60))
    DBTaskResult.objects.all().delete()

    assert webhooks_sweep(now=timezone.now() + timedelta(seconds=1)) == (0, 1)
    run_tasks()
    assert webhooks_sweep(now=timezone.now() + timedelta(seconds=61)) == (0, 1)
    run_tasks()  # the attempt runs at the real clock: the lease has not run out yet, so nothing is sent
    assert len(receiver.received) == 1
    WebhookDelivery.objects.filter(pk=held.pk).update(leased_until=timezone.now() - timedelta(seconds=1))
    assert webhooks_sweep(now=timezone.now() + timedelta(seconds=1)) == (0, 1)
    run_tasks()
    assert len(receiver.received) == 2
    assert set(WebhookDelivery.objects.values_list("state", flat=True)) == {DeliveryState.DELIVERED}


def test_a_receiver_that_now_resolves_to_a_private_address_is_not_sent_to(
    settings, monkeypatch, merchant_account, receiver, authorized
):
    subscription_for(merchant_account, receiver.url)
    settings.WEBHOOK_ALLOWED_HOSTS = []
    settings.DEBUG = False
    transaction_void(txn=authorized, actor=SYSTEM)

    run_tasks()

    assert receiver.received == []
    errors = set(WebhookAttempt.objects.values_list("error", flat=True))
    assert errors == {"Not sent: Must be an https URL."}
