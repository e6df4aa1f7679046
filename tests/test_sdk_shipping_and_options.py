"""The official `gr4vy` SDK, unchanged, against a running server: a buyer's shipping details end to end, used on a
transaction, and the payment options of a checkout."""

import pytest
from gr4vy import auth, errors, models

from buyers.models import ShippingDetails
from giftcards.tests.factories import IssuedGiftCardFactory

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}
ADDRESS = {"line1": "10 Downing Street", "city": "London", "postal_code": "SW1A 2AA", "country": "GB"}


def test_add_list_update_use_on_a_transaction_and_delete_shipping_details(sdk):
    buyer = sdk.buyers.create(display_name="Ada Lovelace", external_identifier="ada-ship")

    added = sdk.buyers.shipping_details.create(
        buyer_id=buyer.id, first_name="Ada", last_name="Lovelace", phone_number="+442071838750", address=ADDRESS
    )
    assert isinstance(added, models.ShippingDetails)
    assert (added.buyer_id, added.first_name, added.address.city) == (buyer.id, "Ada", "London")

    listed = sdk.buyers.shipping_details.list(buyer_id=buyer.id)
    assert [item.id for item in listed.items] == [added.id]

    updated = sdk.buyers.shipping_details.update(buyer_id=buyer.id, shipping_details_id=added.id, first_name="Augusta")
    assert (updated.first_name, updated.last_name) == ("Augusta", "Lovelace")  # PUT leaves absent fields alone
    assert sdk.buyers.shipping_details.get(buyer_id=buyer.id, shipping_details_id=added.id).first_name == "Augusta"

    paid = sdk.transactions.create(
        amount=1299, currency="USD", payment_method=CARD, buyer_id=buyer.id, shipping_details_id=added.id
    )
    assert (paid.shipping_details.id, paid.shipping_details.buyer_id) == (added.id, buyer.id)
    assert (paid.shipping_details.first_name, paid.shipping_details.address.postal_code) == ("Augusta", "SW1A 2AA")

    sdk.buyers.shipping_details.delete(buyer_id=buyer.id, shipping_details_id=added.id)
    assert not ShippingDetails.objects.exists()
    # The transaction kept its copy.
    assert sdk.transactions.get(transaction_id=paid.id).shipping_details.first_name == "Augusta"
    with pytest.raises(errors.Error404):
        sdk.buyers.shipping_details.get(buyer_id=buyer.id, shipping_details_id=added.id)


def test_refusals_arrive_as_typed_errors(sdk, sdk_client):
    buyer = sdk.buyers.create(display_name="Grace")
    other = sdk.buyers.create(display_name="Alan")
    theirs = sdk.buyers.shipping_details.create(buyer_id=other.id, first_name="Alan")

    with pytest.raises(errors.Error400) as invalid:
        sdk.buyers.shipping_details.create(buyer_id=buyer.id, phone_number="020 7183 8750")
    assert invalid.value.data.details[0].pointer == "/phone_number"
    with pytest.raises(errors.Error404):
        sdk.transactions.create(
            amount=100, currency="USD", payment_method=CARD, buyer_id=buyer.id, shipping_details_id=theirs.id
        )
    with pytest.raises(errors.Error403):
        sdk_client(scopes=["buyers.read"]).buyers.shipping_details.create(buyer_id=buyer.id, first_name="Grace")


def test_payment_options_for_a_checkout(sdk, merchant_account):
    IssuedGiftCardFactory(merchant_account=merchant_account, currency="USD")

    options = sdk.payment_options.list(amount=1299, currency="USD", country="US")

    assert isinstance(options, models.PaymentOptions)
    assert [(option.method, option.mode, option.can_delay_capture) for option in options.items] == [
        ("card", "card", True),
        ("gift-card", "gift-card", True),
    ]
    assert [option.method for option in sdk.payment_options.list(amount=1299, currency="EUR").items] == ["card"]
    with pytest.raises(errors.Error400) as refused:
        sdk.payment_options.list(amount=1299, currency="USD", metadata={"cohort": "a"})
    assert refused.value.data.details[0].pointer == "/metadata"


def test_payment_options_with_an_embed_token(live_server, private_key_pem, api_key):
    from gr4vy import Gr4vy

    token = auth.get_token(
        private_key_pem, scopes=["embed"], embed_params={"amount": 1299, "currency": "USD"}, expires_in=600
    )
    with Gr4vy(server_url=live_server.url, bearer_auth=token, merchant_account_id="default") as embed:
        assert [option.method for option in embed.payment_options.list().items] == ["card"]
        with pytest.raises(errors.Error403):
            embed.payment_options.list(amount=1)
