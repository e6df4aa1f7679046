"""Adyen's dispute notifications (its webhook document's `DisputesNotificationRequestItem`), HMAC-signed with the
service's key and posted to its `webhook_url`: REQUEST_FOR_INFORMATION, NOTIFICATION_OF_CHARGEBACK, CHARGEBACK (its
`disputeStatus` says answered or not), CHARGEBACK_REVERSED, SECOND_CHARGEBACK, PREARBITRATION_WON / LOST and
DISPUTE_DEFENSE_PERIOD_ENDED become one dispute of the payment (`originalReference`) with Adyen's dispute
`pspReference`, in the order of their `eventDate` whatever order they arrive in."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest

from disputes.models import Dispute
from payments.errors import Conflict
from payments.tests.assertions import assert_error
from paymentservices.models import InboundNotification
from paymentservices.processors.adyen.tests.test_connector import _item, _post, _signed
from paymentservices.processors.adyen.tests.test_inbound import PAYMENT, _adyen, _at
from paymentservices.processors.calls import DISPUTE_FACT_FUTURE, DISPUTE_FACT_PAST
from transactions.disputes import transaction_disputed, transaction_taken_back
from transactions.models import Transaction
from transactions.services.refunds import refund_create
from transactions.services.state import SYSTEM

pytestmark = pytest.mark.django_db

DISPUTE = "DISPUTE00000001A"
# The dispute's first day, by Adyen's clock (CET): a few days ago, so every fact of a test is within the window of
# dates the server takes (docs/disputes.md) whenever the suite runs.
DAY0 = (
    (datetime.now(UTC) - timedelta(days=4))
    .astimezone(timezone(timedelta(hours=1)))
    .replace(hour=0, minute=0, second=0, microsecond=0)
)


@pytest.fixture
def adyen(merchant_account):
    return _adyen(merchant_account)


@pytest.fixture
def txn(adyen) -> Transaction:
    return _at(adyen, captured=True, currency="EUR")


def _dispute(
    event_code: str,
    txn: Transaction,
    *,
    hour: int,
    psp: str = DISPUTE,
    payment: str = PAYMENT,
    reference=None,
    amount: int | None = None,
    currency: str = "EUR",
    **extra,
):
    item = _item(
        eventCode=event_code,
        pspReference=psp,
        originalReference=payment,
        merchantReference=reference or str(txn.pk),
        eventDate=(DAY0 + timedelta(hours=hour)).isoformat(),
        amount={"value": txn.captured_amount if amount is None else amount, "currency": currency},
    )
    body = json.loads(_signed(item))
    # What Adyen sends beside the signed fields (its signature covers none of them).
    body["notificationItems"][0]["NotificationRequestItem"]["additionalData"].update(
        {"chargebackReasonCode": "10.4", "defensePeriodEndsAt": "2026-12-10T10:00:00+01:00", **extra}
    )
    return json.dumps(body).encode()


def _state(txn: Transaction) -> tuple[str, bool, int]:
    txn = Transaction.objects.get(pk=txn.pk)
    return Dispute.objects.get(transaction=txn).state, transaction_disputed(txn), transaction_taken_back(txn)


def test_an_inquiry_becomes_a_chargeback_that_is_defended_and_reversed(client, adyen, txn):
    assert _post(client, adyen, _dispute("REQUEST_FOR_INFORMATION", txn, hour=1)).status_code == 200
    assert _state(txn) == ("inquiry", True, 0)
    _post(client, adyen, _dispute("NOTIFICATION_OF_CHARGEBACK", txn, hour=2))
    _post(client, adyen, _dispute("CHARGEBACK", txn, hour=3, disputeStatus="Undefended", defendable="true"))
    assert _state(txn) == ("needs_response", True, 0)
    dispute = Dispute.objects.get()
    assert (dispute.reason, dispute.amount, dispute.currency, dispute.due_at.isoformat()) == (
        "10.4",
        1299,
        "EUR",
        "2026-12-10T09:00:00+00:00",
    )
    _post(client, adyen, _dispute("DISPUTE_DEFENSE_PERIOD_ENDED", txn, hour=4, disputeStatus="Responded"))
    assert _state(txn) == ("under_review", True, 0)

    _post(client, adyen, _dispute("CHARGEBACK_REVERSED", txn, hour=30))

    assert _state(txn) == ("won", False, 0)


def test_a_second_chargeback_after_a_reversal_is_lost_in_either_order(client, adyen, txn):
    _post(client, adyen, _dispute("SECOND_CHARGEBACK", txn, hour=40))
    _post(client, adyen, _dispute("CHARGEBACK", txn, hour=3))
    _post(client, adyen, _dispute("CHARGEBACK_REVERSED", txn, hour=30))

    assert _state(txn) == ("lost", True, 1299)


@pytest.mark.parametrize(
    ("event_code", "extra", "state"),
    [
        ("PREARBITRATION_WON", {}, "won"),
        ("PREARBITRATION_LOST", {}, "lost"),
        ("CHARGEBACK", {"disputeStatus": "Accepted"}, "accepted"),
        ("CHARGEBACK", {"defendable": "false"}, "lost"),
        ("CHARGEBACK", {"disputeStatus": "Expired"}, "lost"),
    ],
)
def test_how_a_dispute_ends(client, adyen, txn, event_code, extra, state):
    _post(client, adyen, _dispute(event_code, txn, hour=5, **extra))

    assert _state(txn)[0] == state


def test_a_resent_notification_changes_nothing(client, adyen, txn):
    payload = _dispute("CHARGEBACK", txn, hour=3)

    assert [_post(client, adyen, payload).status_code for _ in range(2)] == [200, 200]

    assert (Dispute.objects.count(), InboundNotification.objects.count()) == (1, 1)


def test_a_dispute_of_a_payment_that_is_not_the_services_changes_nothing(client, adyen, txn):
    unknown = _dispute("CHARGEBACK", txn, hour=3, payment="UNKNOWNPAYMENT00", reference=str(uuid.uuid4()))
    response = _post(client, adyen, unknown)

    assert response.status_code == 200
    assert Dispute.objects.count() == 0
    assert InboundNotification.objects.count() == 1


def test_a_dispute_notification_without_its_date_is_refused_by_name(client, adyen, txn):
    body = json.loads(_dispute("CHARGEBACK", txn, hour=3))
    body["notificationItems"][0]["NotificationRequestItem"]["eventDate"] = "yesterday"

    response = _post(client, adyen, json.dumps(body).encode())

    assert_error(response, 400, "/notificationItems/0/NotificationRequestItem/eventDate")
    assert Dispute.objects.count() == 0


def test_an_older_fact_without_a_state_changes_nothing_of_a_closed_dispute(client, adyen, merchant_account):
    """A CHARGEBACK that cannot be defended is lost for 1000; a DISPUTE_DEFENSE_PERIOD_ENDED without a status, for 250
    and three weeks older, arrives after it: the dispute stays lost for 1000, and no refund of the 750 is accepted."""
    txn = _at(adyen, captured=True, currency="EUR", amount=1000)
    _post(client, adyen, _dispute("CHARGEBACK", txn, hour=0, defendable="false", amount=1000))
    older = _dispute("DISPUTE_DEFENSE_PERIOD_ENDED", txn, hour=-21 * 24, amount=250)

    assert _post(client, adyen, older).status_code == 200

    assert _state(txn) == ("lost", True, 1000)
    assert (Dispute.objects.get().amount, Dispute.objects.get().fact_at) == (1000, DAY0)
    with pytest.raises(Conflict, match="took back 1000"):
        refund_create(txn=Transaction.objects.get(pk=txn.pk), actor=SYSTEM, amount=750)


def test_a_dispute_in_another_currency_is_answered_kept_and_counts_nothing(client, adyen, merchant_account):
    """A lost dispute of 100 JPY on a 1000 USD payment: recorded and on the transaction's page, never 100 of the USD."""
    txn = _at(adyen, captured=True, currency="USD", amount=1000)

    response = _post(
        client, adyen, _dispute("CHARGEBACK", txn, hour=3, amount=100, currency="JPY", disputeStatus="Lost")
    )

    assert response.status_code == 200
    assert (Dispute.objects.count(), InboundNotification.objects.count()) == (0, 1)
    txn = Transaction.objects.get(pk=txn.pk)
    assert (transaction_disputed(txn), transaction_taken_back(txn)) == (False, 0)
    event = txn.events.get(name="dispute_refused")
    assert (event.details["notification"], event.details["currency"]) == ("CHARGEBACK", "JPY")


@pytest.mark.parametrize(
    "event_date",
    ["9999-12-31T23:59:59+01:00", "2000-01-01T00:00:00+01:00", "future", "past"],
)
def test_a_dispute_dated_outside_the_window_is_refused_and_freezes_nothing(client, adyen, txn, caplog, event_date):
    """Adyen's signature does not cover `eventDate`: a fact dated 9999-12-31 would be later than every real one and
    hold the dispute where it said forever."""
    now = datetime.now(UTC)
    event_date = {
        "future": (now + DISPUTE_FACT_FUTURE + timedelta(minutes=5)).isoformat(),
        "past": (now - DISPUTE_FACT_PAST - timedelta(minutes=5)).isoformat(),
    }.get(event_date, event_date)
    _post(client, adyen, _dispute("NOTIFICATION_OF_CHARGEBACK", txn, hour=1))
    body = json.loads(_dispute("CHARGEBACK", txn, hour=2, disputeStatus="Won"))
    body["notificationItems"][0]["NotificationRequestItem"]["eventDate"] = event_date

    response = _post(client, adyen, json.dumps(body).encode())

    assert_error(response, 400, "/notificationItems/0/NotificationRequestItem/eventDate")
    assert "Refused a notification" in caplog.text
    assert InboundNotification.objects.count() == 1  # not recorded: the genuine one is still taken when it comes
    _post(client, adyen, _dispute("CHARGEBACK", txn, hour=3, disputeStatus="Lost"))
    assert _state(txn) == ("lost", True, 1299)


def test_a_dispute_dated_just_inside_the_window_is_taken(client, adyen, txn):
    body = json.loads(_dispute("CHARGEBACK", txn, hour=0, disputeStatus="Lost"))
    soon = datetime.now(UTC) + DISPUTE_FACT_FUTURE - timedelta(minutes=5)
    body["notificationItems"][0]["NotificationRequestItem"]["eventDate"] = soon.isoformat()

    assert _post(client, adyen, json.dumps(body).encode()).status_code == 200

    assert _state(txn) == ("lost", True, 1299)
