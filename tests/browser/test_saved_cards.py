"""Embed for a returning buyer, in headless Chromium: the token is pinned to the buyer, the drop-in lists their
saved cards masked, pays with one, and saves a new card when asked. The demo shop page pins its token to the buyer
given as `?buyer_id=`.
"""

import pytest
from playwright.sync_api import Page, expect

from buyers.tests.factories import BuyerFactory
from paymentmethods.models import PaymentMethod
from paymentmethods.tests.factories import PaymentMethodFactory
from tests.browser.test_checkout import APPROVED_CARD, enter_card, field, session_of, track_requests
from transactions.models import Transaction

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_for(page: Page, shop, buyer_id) -> None:
    page.goto(f"{shop.url}?buyer_id={buyer_id}")
    expect(page.locator("#checkout")).to_have_attribute("data-state", "ready")


def test_a_returning_buyer_pays_with_a_saved_card(demo_shop, browser_page, output_dir):
    buyer = BuyerFactory(merchant_account=demo_shop.merchant_account)
    older = PaymentMethodFactory(merchant_account=demo_shop.merchant_account, buyer=buyer, number="5555555555554444")
    newest = PaymentMethodFactory(merchant_account=demo_shop.merchant_account, buyer=buyer)
    PaymentMethodFactory(merchant_account=demo_shop.merchant_account, number="4012888888881881")  # another buyer's
    page = browser_page
    requests = track_requests(page)

    open_for(page, demo_shop, buyer.pk)

    saved = page.locator(".gr4vy-embed__saved-item")
    expect(saved).to_have_count(3)  # the buyer's two cards and "Use a new card"
    expect(saved.nth(0)).to_contain_text("Visa ending in 1111")
    expect(saved.nth(0)).to_contain_text("Expires 12/39")
    expect(saved.nth(1)).to_contain_text("Mastercard ending in 4444")
    expect(page.get_by_label("Visa ending in 1111")).to_be_checked()
    expect(page.locator(".gr4vy-embed__card")).to_be_hidden()  # no card fields while a saved card is chosen
    expect(page.locator("#checkout")).not_to_contain_text("1881")
    content = page.content()  # masked: the last 4 digits only, never a BIN
    assert "555555" not in content
    assert "411111" not in content
    page.screenshot(path=output_dir / "saved-cards.png", full_page=True)

    page.locator(".gr4vy-embed__pay").click()

    checkout = page.locator("#checkout")
    expect(checkout).to_have_attribute("data-state", "approved")
    transaction = Transaction.objects.get(pk=checkout.get_attribute("data-transaction-id"))
    assert (transaction.status, transaction.buyer_id, transaction.card_last4) == ("capture_succeeded", buyer.pk, "1111")
    assert transaction.payment_method_id == newest.pk
    assert session_of(page).card is None  # nothing went through the card fields
    assert not [url for url in requests if url.split("?")[0].endswith("/fields")]
    assert PaymentMethod.objects.get(pk=older.pk).usage_count == 0


def test_choosing_a_new_card_and_saving_it(demo_shop, browser_page, output_dir):
    buyer = BuyerFactory(merchant_account=demo_shop.merchant_account)
    PaymentMethodFactory(merchant_account=demo_shop.merchant_account, buyer=buyer, number="5555555555554444")
    page = browser_page
    open_for(page, demo_shop, buyer.pk)

    page.get_by_label("Use a new card").check()
    expect(page.locator(".gr4vy-embed__card")).to_be_visible()
    enter_card(page, APPROVED_CARD)
    page.get_by_label("Save this card for next time").check()
    page.screenshot(path=output_dir / "save-new-card.png", full_page=True)
    page.locator(".gr4vy-embed__pay").click()

    checkout = page.locator("#checkout")
    expect(checkout).to_have_attribute("data-state", "approved")
    transaction = Transaction.objects.get(pk=checkout.get_attribute("data-transaction-id"))
    stored = PaymentMethod.objects.get(buyer=buyer, card__last4="1111")
    assert transaction.payment_method_id == stored.pk

    open_for(page, demo_shop, buyer.pk)  # the next visit lists it
    expect(page.locator(".gr4vy-embed__saved-item")).to_have_count(3)
    expect(page.get_by_label("Visa ending in 1111")).to_be_checked()


def test_a_new_card_is_not_saved_unless_asked(demo_shop, browser_page):
    buyer = BuyerFactory(merchant_account=demo_shop.merchant_account)
    page = browser_page
    open_for(page, demo_shop, buyer.pk)

    expect(page.locator(".gr4vy-embed__saved")).to_be_hidden()  # no saved cards yet
    expect(page.get_by_label("Save this card for next time")).not_to_be_checked()
    enter_card(page, APPROVED_CARD)
    page.locator(".gr4vy-embed__pay").click()

    expect(page.locator("#checkout")).to_have_attribute("data-state", "approved")
    assert not PaymentMethod.objects.exists()
    assert Transaction.objects.get().buyer_id == buyer.pk


def test_an_expired_saved_card_is_shown_but_cannot_be_chosen(demo_shop, browser_page, output_dir):
    buyer = BuyerFactory(merchant_account=demo_shop.merchant_account)
    PaymentMethodFactory(merchant_account=demo_shop.merchant_account, buyer=buyer, expiration_year=2020)
    page = browser_page
    open_for(page, demo_shop, buyer.pk)

    expired = page.locator(".gr4vy-embed__saved-item[data-expired]")
    expect(expired).to_contain_text("Expired 12/20")
    expect(expired.locator("input")).to_be_disabled()
    expect(page.get_by_label("Use a new card")).to_be_checked()
    expect(field(page, "number").locator("#sf-input")).to_be_visible()
    page.screenshot(path=output_dir / "saved-card-expired.png", full_page=True)


def test_without_a_buyer_there_are_no_saved_cards_and_no_save_option(demo_shop, browser_page):
    PaymentMethodFactory(merchant_account=demo_shop.merchant_account)
    page = browser_page
    requests = track_requests(page)

    page.goto(demo_shop.url)
    expect(page.locator("#checkout")).to_have_attribute("data-state", "ready")

    expect(page.locator(".gr4vy-embed__saved")).to_be_hidden()
    expect(page.get_by_label("Save this card for next time")).to_have_count(0)
    assert not [url for url in requests if "/payment-methods" in url]
