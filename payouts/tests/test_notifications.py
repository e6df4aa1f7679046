"""Adyen's payout notifications move a pending payout (paid, or declined), once; a decided payout, another service's
or a payout not ours is left as it is."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from payments.connectors import OutcomeUnknown
from paymentservices.models import PaymentService
from paymentservices.processors.adyen import PROCESSOR as ADYEN
from paymentservices.tests.factories import PaymentServiceFactory
from payouts.models import Payout, PayoutStatus
from payouts.tests.factories import PayoutFactory

pytestmark = pytest.mark.django_db

HMAC_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
MERCHANT = "TestMerchantECOM"


@pytest.fixture
def adyen(merchant_account) -> PaymentService:
    return PaymentServiceFactory(
        merchant_account=merchant_account,
        definition_id="adyen-card",
        display_name="Adyen",
        accepted_currencies=["EUR"],
        fields=[
            {"key": "api_key", "value": "AQE_payout_key_0123"},
            {"key": "merchant_account", "value": MERCHANT},
            {"key": "hmac_key", "value": HMAC_KEY},
        ],
    )


@pytest.fixture(autouse=True)
def _adyen_does_not_answer(monkeypatch):
    """Adyen's Payout API gives no answer after the payout was sent (nothing leaves this machine)."""

    def no_answer(self, **kwargs):
        raise OutcomeUnknown("no answer")

    assert ADYEN.payouts is not None
    monkeypatch.setattr(type(ADYEN.payouts), "pay_out", no_answer)


def _pending(adyen) -> Payout:
    """A payout Adyen did not answer: pending, its card still sealed."""
    payout = PayoutFactory(merchant_account=adyen.merchant_account, payment_service=adyen, currency="EUR")
    assert payout.status == PayoutStatus.PENDING
    return payout


def _notification(payout, *, event_code="PAYOUT_THIRDPARTY", success="true", psp="8816178914079738") -> bytes:
    """Adyen's notification, signed as Adyen signs (HMAC-SHA256 over the signed fields joined by colons)."""
    item = {
        "eventCode": event_code,
        "success": success,
        "eventDate": "2026-11-25T14:00:00+01:00",
        "merchantAccountCode": MERCHANT,
        "pspReference": psp,
        "originalReference": "",
        "merchantReference": str(payout.pk),
        "amount": {"value": payout.amount, "currency": payout.currency},
        "reason": "" if success == "true" else "Transaction Not Permitted",
    }
    signed = [psp, "", MERCHANT, str(payout.pk), str(payout.amount), payout.currency, event_code, success]
    digest = hmac.new(bytes.fromhex(HMAC_KEY), ":".join(signed).encode(), hashlib.sha256).digest()
    item["additionalData"] = {"hmacSignature": base64.b64encode(digest).decode()}
    return json.dumps({"live": "false", "notificationItems": [{"NotificationRequestItem": item}]}).encode()


def _post(client, service, payload: bytes):
    return client.post(
        f"/inbound/payment-services/{service.pk}/notifications", payload, content_type="application/json"
    )


def test_a_paid_payout_s_notification_settles_it_once(client, adyen, monkeypatch):
    payout = _pending(adyen)

    assert _post(client, adyen, _notification(payout)).status_code == 200
    assert _post(client, adyen, _notification(payout)).status_code == 200  # Adyen's resend

    payout.refresh_from_db()
    assert (payout.status, payout.payment_service_payout_id) == (PayoutStatus.SUCCEEDED, "8816178914079738")
    assert payout.card is None  # the card given once left the vault


@pytest.mark.parametrize(("event_code", "success"), [("PAYOUT_THIRDPARTY", "false"), ("PAYOUT_DECLINE", "true")])
def test_a_declined_payout_s_notification(client, adyen, event_code, success):
    payout = _pending(adyen)

    assert _post(client, adyen, _notification(payout, event_code=event_code, success=success)).status_code == 200

    payout.refresh_from_db()
    assert (payout.status, payout.raw_response_code) == (PayoutStatus.DECLINED, event_code)


def test_a_decided_payout_or_another_service_s_is_left_as_it_is(client, adyen, merchant_account):
    decided = PayoutFactory(merchant_account=merchant_account)  # the sandbox's, succeeded
    other = _pending(adyen)
    Payout.objects.filter(pk=other.pk).update(payment_service=decided.payment_service)

    assert _post(client, adyen, _notification(decided, event_code="PAYOUT_DECLINE")).status_code == 200
    other_notification = _notification(other, event_code="PAYOUT_DECLINE", psp="8816178914079739")
    assert _post(client, adyen, other_notification).status_code == 200

    assert Payout.objects.get(pk=decided.pk).status == PayoutStatus.SUCCEEDED
    assert Payout.objects.get(pk=other.pk).status == PayoutStatus.PENDING
