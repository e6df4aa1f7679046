"""A dispute answered on the desk in headless Chromium, at a laptop's size and a phone's: a Payments operator opens
the dispute from the queue, defends it with words and a PDF through the form, and the page then says what the
processor (the sandbox) answered and what was sent. Screenshots land in `test-output/`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone
from playwright.sync_api import expect

from disputes.models import DisputeAnswer
from disputes.tests.factories import DisputeFactory
from payments.accounts.services import merchant_account_create
from payments.staff.roles import PAYMENTS_OPERATOR, roles_sync
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long staff passphrase 42"
PDF = b"%PDF-1.4\n% signed for on delivery\n"


@pytest.fixture
def desk(two_origin_server, transactional_db, settings):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = settings.SECURE_SSL_REDIRECT = False
    account = merchant_account_create(id="default", display_name="Default", allowed_origins=[])
    service = PaymentServiceFactory(mock_card=True, merchant_account=account)
    dispute = DisputeFactory(
        transaction__merchant_account=account,
        transaction__payment_service=service,
        transaction__buyer_email_address="buyer@example.com",
        processor_dispute_id="dp_desk_1",
        due_at=timezone.now() + timedelta(days=5),
    )
    roles_sync()
    user = User.objects.create_user("payments-operator", password=PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get(name=PAYMENTS_OPERATOR))
    return two_origin_server.url, dispute


def test_an_operator_defends_a_dispute_with_words_and_a_document(desk, sized, output_dir):
    origin, dispute = desk
    page, size = sized
    page.goto(f"{origin}/admin/login/?next=/admin/disputes/dispute/")
    page.fill("#id_username", "payments-operator")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")

    page.goto(f"{origin}/admin/disputes/dispute/{dispute.pk}/change/")
    page.click("a.dispute-answer")
    page.check("input[name=action][value=defend]")
    page.fill("#id_text", "Signed for on delivery.")
    page.set_input_files("#id_document", files=[{"name": "delivery.pdf", "mimeType": "application/pdf", "buffer": PDF}])
    page.screenshot(path=output_dir / f"dispute-answer-form-{size}.png", full_page=True)
    page.click("input[type=submit][value='Send the answer']")

    expect(page.locator(".messagelist")).to_contain_text("The processor answered: under review.")
    shown = page.locator(".dispute-answer-shown")
    expect(shown).to_contain_text("the processor answered under review")
    expect(shown).to_contain_text("Signed for on delivery.")
    expect(shown).to_contain_text("delivery.pdf (application/pdf")
    expect(page.locator("a.dispute-answer")).to_have_count(0)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1  # nothing scrolls sideways
    page.screenshot(path=output_dir / f"dispute-answered-{size}.png", full_page=True)
    assert DisputeAnswer.objects.get().outcome == "under_review"


def test_an_operator_opens_a_test_dispute_answers_it_and_marks_it_won(desk, sized, output_dir):
    origin, dispute = desk
    page, size = sized
    paid = dispute.transaction
    page.goto(f"{origin}/admin/login/?next=/admin/disputes/dispute/")
    page.fill("#id_username", "payments-operator")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")

    page.click("a.dispute-test")
    page.fill("#id_transaction", str(paid.pk))
    page.select_option("#id_reason", "product_not_received")
    page.screenshot(path=output_dir / f"dispute-test-form-{size}.png", full_page=True)
    page.click("input[type=submit][value='Open the test dispute']")

    expect(page.locator(".messagelist")).to_contain_text("Test dispute opened")
    page.click("a.dispute-answer")
    page.check("input[name=action][value=defend]")
    page.fill("#id_text", "Delivered to the door.")
    page.click("input[type=submit][value='Send the answer']")
    page.click("button[name=state][value=won]")

    expect(page.locator(".messagelist")).to_contain_text("The test dispute is won.")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1  # nothing scrolls sideways
    page.screenshot(path=output_dir / f"dispute-test-won-{size}.png", full_page=True)
    test_dispute = paid.disputes.exclude(pk=dispute.pk).get()
    assert (test_dispute.state, test_dispute.reason) == ("won", "product_not_received")
