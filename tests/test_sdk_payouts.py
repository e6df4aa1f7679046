"""The official `gr4vy` SDK, unchanged, against a running server: `payouts.create`, `payouts.list` and `payouts.get`,
to a stored card through the sandbox and through Adyen (Prism serving Adyen's Payout contract validates every request),
and a refusal as the SDK's typed error."""

import pytest
from gr4vy import errors, models

from paymentmethods.tests.factories import PaymentMethodFactory
from paymentservices.models import PaymentService
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_sdk_pays_out_to_a_stored_card_lists_and_reads_it(sdk, merchant_account):
    sandbox = PaymentService.objects.get(merchant_account=merchant_account, definition_id="mock-card")
    method = PaymentMethodFactory(merchant_account=merchant_account)

    payout = sdk.payouts.create(
        amount=1299,
        currency="USD",
        payment_service_id=str(sandbox.pk),
        payment_method={"method": "id", "id": str(method.pk)},
        buyer_id=str(method.buyer_id),
        category="online_gambling",
        external_identifier="win-1",
        merchant={
            "name": "Acme Games",
            "identification_number": "12345",
            "phone_number": "+14155552671",
            "url": "https://acme.example",
            "statement_descriptor": "ACME WINNINGS",
            "merchant_category_code": "7995",
        },
    )

    assert isinstance(payout, models.PayoutSummary)
    assert (payout.status, payout.amount, payout.payment_method.id) == ("succeeded", 1299, str(method.pk))
    assert payout.payment_service.payment_service_definition_id == "mock-card"
    page = sdk.payouts.list()
    assert [item.id for item in page.result.items] == [payout.id]
    assert sdk.payouts.list(status=["declined"]).result.items == []
    assert sdk.payouts.get(payout_id=payout.id).external_identifier == "win-1"


def test_the_sdk_pays_out_through_adyen(sdk, merchant_account, adyen_payout_mock):
    adyen = PaymentServiceFactory(merchant_account=merchant_account, adyen=True, accepted_currencies=["EUR"])
    method = PaymentMethodFactory(merchant_account=merchant_account)
    adyen_payout_mock.answer("/payout", example="payout-authorised")

    payout = sdk.payouts.create(
        amount=2500,
        currency="EUR",
        payment_service_id=str(adyen.pk),
        payment_method={"method": "id", "id": str(method.pk)},
    )

    assert (payout.status, payout.payment_service_payout_id) == ("succeeded", "SIMPAYOUT0000001")
    [exchange] = adyen_payout_mock.exchanges
    assert (exchange.body["reference"], exchange.body["amount"]) == (payout.id, {"value": 2500, "currency": "EUR"})


def test_a_refusal_is_the_sdk_s_typed_error(sdk, merchant_account):
    stripe = PaymentServiceFactory(merchant_account=merchant_account)

    with pytest.raises(errors.Error400) as refused:
        sdk.payouts.create(
            amount=100,
            currency="USD",
            payment_service_id=str(stripe.pk),
            payment_method={"method": "card", "number": "4111111111111111", "expiration_date": "12/39"},
        )

    assert "cannot pay out" in refused.value.data.message
