"""Adyen's instant card payouts through its official library, against Prism serving Adyen's Payout contract (every
request checked against Adyen's schemas): paid, refused in upstream's words, undecided or unanswered (the payout stays
pending: `OutcomeUnknown`), and our reference as Adyen's reference and idempotency key."""

import pytest

from payments.connectors import CardDetails, OutcomeUnknown
from payments.connectors.base import Outcome
from paymentservices.processors.adyen import PROCESSOR
from paymentservices.processors.paying_out import PayoutMerchantDetails, PayoutRecipient, PayoutRequest

CREDENTIALS = {"api_key": "AQE_test_adyen_key_0123", "merchant_account": "SimulatedMerchantECOM"}


def _request(reference: str = "6f96a57e-a35b-4f98-b192-d298995f811a") -> PayoutRequest:
    return PayoutRequest(
        reference=reference,
        amount=2500,
        currency="EUR",
        card=CardDetails(number="4111111111111111", expiration_month=3, expiration_year=2030),
        category="online_gambling",
        merchant=PayoutMerchantDetails(name="Acme Games", statement_descriptor="ACME WINNINGS"),
        recipient=PayoutRecipient(first_name="Ada", last_name="Lovelace", email="ada@example.com"),
    )


def _pay_out(request: PayoutRequest | None = None):
    assert PROCESSOR.payouts is not None
    return PROCESSOR.payouts.pay_out(credentials=CREDENTIALS, request=request or _request())


def test_a_paid_payout(adyen_payout_mock):
    adyen_payout_mock.answer("/payout", example="payout-authorised")

    result = _pay_out()

    assert (result.outcome, result.processor_reference) == (Outcome.APPROVED, "SIMPAYOUT0000001")
    [exchange] = adyen_payout_mock.exchanges
    assert exchange.url.endswith("/payout")
    assert exchange.body["reference"] == "6f96a57e-a35b-4f98-b192-d298995f811a"
    assert exchange.body["amount"] == {"value": 2500, "currency": "EUR"}
    assert exchange.body["merchantAccount"] == "SimulatedMerchantECOM"
    assert exchange.body["card"] == {
        "number": "4111111111111111",
        "expiryMonth": "03",
        "expiryYear": "2030",
        "holderName": "Ada Lovelace",
    }
    assert exchange.body["shopperName"] == {"firstName": "Ada", "lastName": "Lovelace"}
    headers = {key.lower(): value for key, value in exchange.headers.items()}
    assert headers.get("idempotency-key") == "6f96a57e-a35b-4f98-b192-d298995f811a"


def test_a_card_that_cannot_receive_is_declined_in_upstream_s_words(adyen_payout_mock):
    adyen_payout_mock.answer("/payout", example="payout-refused")

    result = _pay_out()

    assert result.outcome is Outcome.DECLINED
    assert (result.error_code, result.raw_response_code) == ("transaction_not_permitted", "23")
    assert "Transaction Not Permitted" in (result.raw_response_description or "")


def test_an_undecided_payout_stays_pending(adyen_payout_mock):
    adyen_payout_mock.answer("/payout", example="payout-received")

    with pytest.raises(OutcomeUnknown):
        _pay_out()


def test_no_answer_after_sending_is_asked_again_with_the_same_key_then_left_pending(adyen_payout_mock):
    adyen_payout_mock.answer("/payout", code=500)

    with pytest.raises(OutcomeUnknown):
        _pay_out()

    keys = [{k.lower(): v for k, v in e.headers.items()}.get("idempotency-key") for e in adyen_payout_mock.exchanges]
    assert keys == ["6f96a57e-a35b-4f98-b192-d298995f811a"] * 2


def test_a_refused_key_is_a_failure_nothing_paid(adyen_payout_mock):
    adyen_payout_mock.answer("/payout", code=401)

    result = _pay_out()

    assert (result.outcome, result.error_code) == (Outcome.FAILED, "invalid_service_configuration")


def test_adyen_s_own_hosts_by_default(settings):
    from paymentservices.processors.adyen import AdyenConnector

    connector = AdyenConnector(api_key="k", merchant_account="m")
    assert connector._payouts.baseUrl == "https://pal-test.adyen.com/pal/servlet/Payout/v68"
    live = AdyenConnector(api_key="k", merchant_account="m", live_url_prefix="1797a841fbb37ca7-AdyenDemo")
    assert live._payouts.baseUrl == (
        "https://1797a841fbb37ca7-AdyenDemo-pal-live.adyenpayments.com/pal/servlet/Payout/v68"
    )
