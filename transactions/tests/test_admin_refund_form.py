"""The refund form as an operator uses it: what is left in major units, an amount that is too much kept in its box
with the error beside it, and Stripe's reasons beside free text."""

import pytest
from django.urls import reverse

from payments.staff.roles import PAYMENTS_OPERATOR
from transactions.tests.test_admin import authorized

pytestmark = pytest.mark.django_db


def refund_url(txn) -> str:
    return reverse("admin:transactions_transaction_refund", args=[txn.pk])


def test_the_hint_says_what_is_left_to_refund(client, merchant_account, staff_login):
    txn = authorized(merchant_account, amount=1250, intent="capture")
    staff_login(PAYMENTS_OPERATOR)
    client.post(refund_url(txn), {"amount": "5.00", "reason_choice": "requested_by_customer", "reason": ""})

    html = client.get(refund_url(txn)).content.decode()

    assert "Up to USD 7.50 left to refund" in html
    assert "USD 12.50" not in html.split('id="id_amount"')[1]


def test_too_much_keeps_the_input_and_says_what_is_left_in_major_units(client, merchant_account, staff_login):
    txn = authorized(merchant_account, amount=1250, intent="capture")
    staff_login(PAYMENTS_OPERATOR)
    client.post(refund_url(txn), {"amount": "5.00", "reason": "Part of the order"})

    response = client.post(refund_url(txn), {"amount": "12.50", "reason": "Whole order"})

    assert response.status_code == 200  # the form again, not a redirect that throws it away
    html = response.content.decode()
    assert "USD 12.50 is more than the USD 7.50 left to refund." in html
    assert "(750)" not in html
    assert 'value="12.50"' in html
    assert 'value="Whole order"' in html
    txn.refresh_from_db()
    assert txn.refunded_amount == 500


@pytest.mark.parametrize(
    ("data", "stored"),
    [
        ({"reason_choice": "duplicate", "reason": ""}, "Duplicate"),
        ({"reason_choice": "fraudulent", "reason": "Card reported stolen"}, "Fraudulent: Card reported stolen"),
        ({"reason_choice": "requested_by_customer", "reason": ""}, "Requested by customer"),
        ({"reason_choice": "", "reason": "Damaged item"}, "Damaged item"),
    ],
    ids=["duplicate", "fraudulent-with-text", "requested-by-customer", "free-text"],
)
def test_the_reason_is_a_choice_or_free_text_stored_on_the_refund(client, merchant_account, staff_login, data, stored):
    txn = authorized(merchant_account, amount=1000, intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    client.post(refund_url(txn), {"amount": "2.00", **data})

    assert txn.refunds.get().reason == stored


def test_a_reason_is_still_required(client, merchant_account, staff_login):
    txn = authorized(merchant_account, amount=1000, intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    html = client.post(refund_url(txn), {"amount": "2.00", "reason_choice": "", "reason": ""}).content.decode()

    assert "Choose a reason or write one." in html
    assert not txn.refunds.exists()


def test_the_form_offers_stripes_reasons(client, merchant_account, staff_login):
    txn = authorized(merchant_account, amount=1000, intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    html = client.get(refund_url(txn)).content.decode()

    for value, label in [
        ("duplicate", "Duplicate"),
        ("fraudulent", "Fraudulent"),
        ("requested_by_customer", "Requested by customer"),
    ]:
        assert f'<option value="{value}">{label}</option>' in html


def test_on_a_split_payment_a_typed_amount_is_held_to_the_cards_part(client, merchant_account, staff_login):
    from giftcards.tests.factories import IssuedGiftCardFactory
    from transactions.requests import GiftCardRequest

    gift_card = IssuedGiftCardFactory(merchant_account=merchant_account, amount=500)
    txn = authorized(
        merchant_account,
        amount=1299,
        intent="capture",
        gift_cards=(GiftCardRequest(amount=500, number=gift_card.number, pin=gift_card.pin),),
    )
    staff_login(PAYMENTS_OPERATOR)

    hint = client.get(refund_url(txn)).content.decode()
    refused = client.post(refund_url(txn), {"amount": "10.00", "reason": "x"}).content.decode()

    assert "Up to USD 12.99 left to refund. A typed amount comes off the card, up to USD 7.99." in hint
    assert "USD 10.00 is more than the USD 7.99 left to refund on the card." in refused
    assert not txn.refunds.exists()
