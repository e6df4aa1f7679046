"""A payout to a card is money out of the merchant's balance: one `card-payout` ledger line as it succeeds, whichever
way it succeeds (the processor's answer, recovery's ask, a notification), and never a second one; a declined or
failed payout has none."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from payments.connectors import OutcomeUnknown
from paymentservices.processors import sandbox
from payouts.models import PayoutStatus
from payouts.services import payouts_recover_pending
from payouts.tests.factories import PayoutFactory
from payouts.tests.test_notifications import _adyen_does_not_answer, _notification, _pending, _post, adyen
from settlements.models import EntryKind, LedgerEntry, SettlementReportFile
from settlements.services import ledger_payout_record

pytestmark = pytest.mark.django_db

__all__ = ["_adyen_does_not_answer", "adyen"]  # fixtures, for the notification test


def _lines(payout):
    return list(LedgerEntry.objects.filter(payout=payout))


def test_a_succeeded_payout_is_one_line_of_money_out(merchant_account):
    payout = PayoutFactory(merchant_account=merchant_account, amount=2500, currency="USD")

    [line] = _lines(payout)
    assert payout.status == PayoutStatus.SUCCEEDED
    assert (line.kind, line.amount, line.net_amount, line.currency) == (EntryKind.CARD_PAYOUT, 2500, -2500, "USD")
    assert (line.processor_reference, line.merchant_reference) == (payout.payment_service_payout_id, str(payout.pk))
    assert (line.source, line.transaction_id, line.merchant_account) == ("mock-card", None, merchant_account)
    assert line.report.payment_service == payout.payment_service

    assert ledger_payout_record(payout) is None  # asked again: nothing added
    assert _lines(payout) == [line]


@pytest.mark.parametrize("number", ["4000000000000002", "4000000000000119"], ids=["declined", "failed"])
def test_a_payout_that_did_not_succeed_has_no_line(merchant_account, number):
    payout = PayoutFactory(merchant_account=merchant_account, number=number)

    assert payout.status in (PayoutStatus.DECLINED, PayoutStatus.FAILED)
    assert ledger_payout_record(payout) is None
    assert not LedgerEntry.objects.exists()


def test_a_recovered_payout_is_one_line_however_often_recovery_runs(merchant_account, monkeypatch):
    payouts = type(sandbox.PROCESSOR.payouts)
    decide = payouts.pay_out

    def decided_then_lost(self, **kwargs):
        decide(self, **kwargs)
        raise OutcomeUnknown("the answer was lost")

    monkeypatch.setattr(payouts, "pay_out", decided_then_lost)
    payout = PayoutFactory(merchant_account=merchant_account)
    assert payout.status == PayoutStatus.PENDING
    assert not _lines(payout)
    monkeypatch.undo()

    later = timezone.now() + timedelta(hours=1)
    assert payouts_recover_pending(now=later).settled == 1
    assert payouts_recover_pending(now=later).asked == 0

    payout.refresh_from_db()
    assert payout.status == PayoutStatus.SUCCEEDED
    assert [line.net_amount for line in _lines(payout)] == [-payout.amount]


def test_a_repeated_notification_adds_no_second_line(client, adyen):
    payout = _pending(adyen)

    assert _post(client, adyen, _notification(payout)).status_code == 200
    assert _post(client, adyen, _notification(payout)).status_code == 200  # Adyen's resend
    assert _post(client, adyen, _notification(payout, event_code="PAYOUT_DECLINE")).status_code == 200

    [line] = _lines(payout)
    assert (line.source, line.processor_reference, line.net_amount) == ("adyen-card", "8816178914079738", -1299)


def test_a_declined_notification_adds_no_line(client, adyen):
    payout = _pending(adyen)

    assert _post(client, adyen, _notification(payout, event_code="PAYOUT_DECLINE")).status_code == 200

    assert not LedgerEntry.objects.exists()


def test_payouts_that_succeeded_before_the_ledger_kept_them_are_written_once(merchant_account):
    earlier, kept = (PayoutFactory(merchant_account=merchant_account, amount=amount) for amount in (700, 900))
    # As before the ledger kept payouts: the payout succeeded and no file or line names it.
    SettlementReportFile.objects.filter(entries__payout=earlier).delete()
    declined = PayoutFactory(merchant_account=merchant_account, number="4000000000000002")
    kept_line = _lines(kept)
    assert _lines(earlier) == []
    assert len(kept_line) == 1
    out = StringIO()

    call_command("ledger_card_payouts", stdout=out)
    call_command("ledger_card_payouts", stdout=out)

    [line] = _lines(earlier)
    assert (line.kind, line.net_amount, line.merchant_reference) == (EntryKind.CARD_PAYOUT, -700, str(earlier.pk))
    assert _lines(kept) == kept_line
    assert _lines(declined) == []
    assert out.getvalue().splitlines() == [
        "1 succeeded payouts written to the ledger.",
        "0 succeeded payouts written to the ledger.",
    ]
