"""The official `gr4vy` SDK, unchanged, against a running server: gift cards stored, listed, fetched,
checked and deleted end to end."""

import pytest
from gr4vy import errors, models

from buyers.tests.factories import BuyerFactory
from giftcards.models import GiftCard, IssuedGiftCard
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_store_list_get_balances_and_delete(sdk, merchant_account):
    card = IssuedGiftCardFactory(amount=4200, currency="EUR")
    buyer = BuyerFactory(merchant_account=merchant_account)

    created = sdk.gift_cards.create(number=card.number, pin=card.pin, buyer_id=str(buyer.id))
    assert isinstance(created, models.GiftCard)
    assert (created.bin, created.sub_bin, created.last4) == (card.bin, card.sub_bin, card.last4)
    assert created.gift_card_service.gift_card_service_definition_id == "mock-gift-card"
    assert created.buyer.id == str(buyer.id)
    assert created.usage_count == 0

    page = sdk.gift_cards.list(buyer_id=str(buyer.id))
    assert [item.id for item in page.result.items] == [created.id]

    fetched = sdk.gift_cards.get(gift_card_id=created.id)
    assert (fetched.id, fetched.created_at) == (created.id, created.created_at)

    summaries = sdk.gift_cards.balances.list(
        items=[{"id": created.id}, {"number": card.number, "pin": card.pin}, {"number": card.number, "pin": "0"}]
    )
    assert isinstance(summaries, models.GiftCardSummaries)
    assert [(item.id, item.balance, item.currency) for item in summaries.items[:2]] == [
        (created.id, 4200, "EUR"),
        (None, 4200, "EUR"),
    ]
    assert summaries.items[2].balance_error_code == "invalid_gift_card"

    buyer_cards = sdk.buyers.gift_cards.list(buyer_id=str(buyer.id))
    assert [(item.id, item.balance) for item in buyer_cards.items] == [(created.id, 4200)]

    sdk.gift_cards.delete(gift_card_id=created.id)
    assert not GiftCard.objects.exists()
    assert IssuedGiftCard.objects.filter(pk=card.pk).exists()
    with pytest.raises(errors.Error404):
        sdk.gift_cards.get(gift_card_id=created.id)


def test_a_wrong_pin_is_a_typed_400(sdk, merchant_account):
    card = IssuedGiftCardFactory()

    with pytest.raises(errors.Error400) as raised:
        sdk.gift_cards.create(number=card.number, pin=card.pin + "9")

    assert raised.value.data.code == "bad_request"
    assert not GiftCard.objects.exists()


def test_paging_with_next_visits_every_card_once_and_stops(sdk, merchant_account):
    expected = {str(stored.id) for stored in GiftCardFactory.create_batch(7, merchant_account=merchant_account)}

    seen = []
    page = sdk.gift_cards.list(limit=3)
    while page is not None:
        seen.extend(item.id for item in page.result.items)
        page = page.next()

    assert sorted(seen) == sorted(expected)


def test_issue_a_card_then_open_its_page_once(sdk, merchant_account, buyer):
    issuance = sdk.gift_cards.issuances.create(
        theme="birthday", amount=2500, currency="EUR", external_identifier="order-1", idempotency_key="sdk-issue"
    )

    assert isinstance(issuance, models.GiftCardIssuance)
    assert (issuance.amount, issuance.currency, issuance.external_identifier) == (2500, "EUR", "order-1")
    assert issuance.gift_card_service.gift_card_service_definition_id == "mock-gift-card"
    again = sdk.gift_cards.issuances.create(
        theme="birthday", amount=2500, currency="EUR", external_identifier="order-1", idempotency_key="sdk-issue"
    )
    assert (again.id, again.url) == (issuance.id, issuance.url)

    shown = buyer.post(issuance.url)
    assert shown.status_code == 200
    card = IssuedGiftCard.objects.get()
    assert card.last4 in shown.text.replace(" ", "")
    assert buyer.post(issuance.url).status_code == 404


def test_activate_a_pre_printed_card_and_store_it(sdk, merchant_account):
    card = IssuedGiftCardFactory(amount=1000, currency="USD", preprinted=True)
    buyer = BuyerFactory(merchant_account=merchant_account)

    activated = sdk.gift_cards.activations.create(
        number=card.number, pin=card.pin, amount=500, currency="USD", store=True, buyer_id=str(buyer.id)
    )

    assert isinstance(activated, models.GiftCard)
    assert activated.id == str(GiftCard.objects.get().id)
    assert activated.buyer.id == str(buyer.id)
    card.refresh_from_db()
    assert (card.status, card.balance) == ("active", 1500)
    with pytest.raises(errors.Error409):
        sdk.gift_cards.activations.create(number=card.number, pin=card.pin)
