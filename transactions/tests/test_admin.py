"""The transactions admin: read-only and masked for support; capture, void and refund for operators only."""

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from payments.staff.roles import PAYMENTS_OPERATOR, SUPPORT
from transactions.models import Transaction
from transactions.requests import CardRequest, TransactionRequest
from transactions.services import Actor, transaction_create

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:transactions_transaction_changelist")


def authorized(merchant_account, amount: int = 1000, **kwargs) -> Transaction:
    card = CardRequest(number="4111111111111111", expiration_month=12, expiration_year=2039, security_code="123")
    request = TransactionRequest(amount=amount, currency="USD", payment_method=card, **kwargs)
    return transaction_create(merchant_account=merchant_account, actor=Actor.api_key("kid"), request=request)


def act(client, action: str, *transactions: Transaction, **extra):
    data = {"action": action, ACTION_CHECKBOX_NAME: [str(txn.pk) for txn in transactions], **extra}
    return client.post(CHANGELIST, data, follow=True)


def test_support_sees_masked_cards_amounts_and_history_but_cannot_act(client, merchant_account, staff_login):
    txn = authorized(merchant_account)
    staff_login(SUPPORT)

    listing = client.get(CHANGELIST).content.decode()
    page = client.get(reverse("admin:transactions_transaction_change", args=[txn.pk])).content.decode()
    attempt = act(client, "capture", txn, confirmed="yes")

    for html in (listing, page):
        assert "•••• 1111" in html
        assert "4111111111111111" not in html
    assert "authorization_succeeded" in page
    assert "transaction_created" in page  # the event history inline
    assert 'name="amount"' not in page
    assert 'value="capture"' not in listing
    assert attempt.status_code == 200
    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"
    assert not LogEntry.objects.exists()


def test_an_operator_confirms_a_capture_which_runs_the_service_and_is_logged(client, merchant_account, staff_login):
    txn = authorized(merchant_account)
    operator = staff_login(PAYMENTS_OPERATOR)

    confirmation = act(client, "capture", txn)
    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"  # nothing happens before the confirmation
    assert 'name="confirmed"' in confirmation.content.decode()

    done = act(client, "capture", txn, confirmed="yes", amount="600")

    assert done.status_code == 200
    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("capture_succeeded", 600)
    entry = LogEntry.objects.get()
    assert (entry.user, entry.object_id) == (operator, str(txn.pk))
    assert "captured 600 USD" in entry.get_change_message()
    last = txn.events.last()
    assert (last.name, last.actor_type, last.actor) == ("capture_succeeded", "admin", operator.username)


def test_the_actions_are_post_only(client, merchant_account, staff_login):
    txn = authorized(merchant_account)
    staff_login(PAYMENTS_OPERATOR)

    client.get(CHANGELIST, {"action": "void", ACTION_CHECKBOX_NAME: str(txn.pk), "confirmed": "yes"})

    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"


def test_void_and_refund_of_several_transactions(client, merchant_account, staff_login):
    to_void = [authorized(merchant_account), authorized(merchant_account)]
    to_refund = [authorized(merchant_account, intent="capture"), authorized(merchant_account, 500, intent="capture")]
    staff_login(PAYMENTS_OPERATOR)

    act(client, "void", *to_void, confirmed="yes")
    act(client, "refund", *to_refund, confirmed="yes")

    assert {Transaction.objects.get(pk=txn.pk).status for txn in to_void} == {"authorization_voided"}
    assert [Transaction.objects.get(pk=txn.pk).refunded_amount for txn in to_refund] == [1000, 500]
    assert LogEntry.objects.count() == 4


def test_a_refused_action_says_why_and_changes_nothing(client, merchant_account, staff_login):
    captured = authorized(merchant_account, intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    response = act(client, "void", captured, confirmed="yes")

    assert "cannot be voided: it has already been captured" in response.content.decode()
    captured.refresh_from_db()
    assert captured.status == "capture_succeeded"
    assert not LogEntry.objects.exists()


def test_a_partial_refund_amount_is_checked(client, merchant_account, staff_login):
    txn = authorized(merchant_account, intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    too_much = act(client, "refund", txn, confirmed="yes", amount="1001")
    invalid = act(client, "refund", txn, confirmed="yes", amount="-3")
    partial = act(client, "refund", txn, confirmed="yes", amount="250")

    assert "more than what is left to refund" in too_much.content.decode()
    assert 'name="confirmed"' in invalid.content.decode()  # the form comes back with its error
    assert partial.status_code == 200
    txn.refresh_from_db()
    assert txn.refunded_amount == 250
