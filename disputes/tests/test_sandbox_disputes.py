"""Test disputes on the sandbox (disputes.sandbox): the Payments operator role opens one on a captured sandbox payment
from the desk and decides it won or lost, each applied as a processor's word is; other processors' payments, money not
captured and amounts beyond it are refused with nothing written; Support can do neither."""

from __future__ import annotations

import pytest
from django.urls import reverse

from disputes.models import Dispute
from disputes.tests.factories import DisputeFactory
from payments.choices import DisputeState
from payments.staff.roles import PAYMENTS_OPERATOR, SUPPORT
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import TransactionEvent
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db
OPEN = "admin:disputes_dispute_test"


@pytest.fixture
def paid(merchant_account):
    service = PaymentServiceFactory(mock_card=True, merchant_account=merchant_account)
    return TransactionFactory(merchant_account=merchant_account, payment_service=service, captured=True, amount=1299)


@pytest.fixture
def operator(client, staff_login):
    staff_login(PAYMENTS_OPERATOR)
    return client


def _open(client, txn, **fields):
    return client.post(reverse(OPEN), {"transaction": str(txn.pk), "amount": "", "reason": "fraudulent", **fields})


def test_an_operator_opens_a_test_dispute_as_the_sandbox_would_notify_it(operator, paid):
    listing = operator.get(reverse("admin:disputes_dispute_changelist")).content.decode()
    assert reverse(OPEN) in listing
    assert f'value="{paid.pk}"' in operator.get(reverse(OPEN), {"transaction": str(paid.pk)}).content.decode()

    answer = _open(operator, paid)

    dispute = Dispute.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == reverse("admin:disputes_dispute_change", args=[dispute.pk])
    assert (dispute.state, dispute.amount, dispute.currency, dispute.reason) == (
        DisputeState.NEEDS_RESPONSE,
        1299,
        "USD",
        "fraudulent",
    )
    assert dispute.processor_dispute_id.startswith("dp_test_")
    assert dispute.due_at is not None
    # Applied as a processor's word is (dispute_apply): the payment's history says so, and by whom.
    event = TransactionEvent.objects.get(transaction=paid, name="dispute_needs_response")
    assert (event.details["notification"], event.details["by"]) == ("sandbox_test_dispute", "payments-operator")


def test_a_test_dispute_is_decided_won_or_lost_from_its_page(operator, paid):
    _open(operator, paid, amount="500")
    dispute = Dispute.objects.get()
    decide = reverse("admin:disputes_dispute_decide", args=[dispute.pk])
    assert decide in operator.get(reverse("admin:disputes_dispute_change", args=[dispute.pk])).content.decode()

    operator.post(decide, {"state": "lost"})
    dispute.refresh_from_db()
    assert (dispute.state, dispute.amount) == (DisputeState.LOST, 500)
    assert TransactionEvent.objects.filter(transaction=paid, name="dispute_lost").exists()

    page = operator.post(decide, {"state": "won"}, follow=True).content.decode()
    dispute.refresh_from_db()
    assert dispute.state == DisputeState.LOST  # a closed dispute is never decided again
    assert "already closed" in page


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"amount": "1300"}, "between 1 and the captured 1299"),
        ({"reason": "bored"}, "Select a valid choice"),
        ({"transaction": "00000000-0000-0000-0000-000000000000"}, "No transaction has this id"),
    ],
)
def test_a_refusal_shows_on_the_form_and_opens_nothing(operator, paid, change, why):
    answer = _open(operator, paid, **change)

    assert answer.status_code == 200
    assert why in answer.content.decode()
    assert not Dispute.objects.exists()


def test_money_not_captured_cannot_be_disputed(operator, paid):
    paid.captured_amount = 0
    paid.save()

    assert "captured nothing" in _open(operator, paid).content.decode()
    assert not Dispute.objects.exists()


def test_another_processors_payment_is_refused(operator, merchant_account):
    txn = TransactionFactory(
        merchant_account=merchant_account,
        payment_service=PaymentServiceFactory(adyen=True, merchant_account=merchant_account),
        captured=True,
    )

    assert "sandbox payments only" in _open(operator, txn).content.decode()
    assert not Dispute.objects.exists()


def test_a_processors_own_dispute_cannot_be_decided_from_the_desk(operator, paid):
    dispute = DisputeFactory(transaction=paid, payment_service=paid.payment_service)

    assert (
        reverse("admin:disputes_dispute_decide", args=[dispute.pk])
        not in operator.get(reverse("admin:disputes_dispute_change", args=[dispute.pk])).content.decode()
    )
    operator.post(reverse("admin:disputes_dispute_decide", args=[dispute.pk]), {"state": "won"})
    dispute.refresh_from_db()
    assert dispute.state == DisputeState.NEEDS_RESPONSE


def test_support_can_neither_open_nor_decide(client, staff_login, paid):
    staff_login(SUPPORT)
    dispute = DisputeFactory(transaction=paid, payment_service=paid.payment_service, processor_dispute_id="dp_test_1")

    assert reverse(OPEN) not in client.get(reverse("admin:disputes_dispute_changelist")).content.decode()
    assert client.get(reverse(OPEN)).status_code == 403
    assert _open(client, paid).status_code == 403
    assert client.post(reverse("admin:disputes_dispute_decide", args=[dispute.pk]), {"state": "won"}).status_code == 403
    assert Dispute.objects.get().state == DisputeState.NEEDS_RESPONSE
