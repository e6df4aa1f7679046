"""A link paid with a card that the issuer challenges records how the payment ended as the buyer answers the
challenge (or as the challenge expires unanswered): completed at once, or payable again, not at the next tend or
when its page is opened again."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.utils import timezone

from paymentlinks.embed import page_checkout
from paymentlinks.models import PaymentLink, PaymentLinkStatus
from paymentlinks.services import payment_links_tend
from paymentlinks.tests.factories import PaymentLinkFactory
from paymentlinks.tests.test_embed import _pay, _with_card
from paymentservices.models import PaymentService
from paymentservices.services import payment_service_update
from transactions.services.challenges import challenges_expire
from transactions.tests.test_three_d_secure import CHALLENGE_N, CHALLENGE_Y

pytestmark = pytest.mark.django_db


def _challenged(number: str) -> tuple[PaymentLink, str]:
    link = PaymentLinkFactory(intent="capture")
    service = PaymentService.objects.get(merchant_account=link.merchant_account, definition_id="mock-card")
    payment_service_update(service=service, three_d_secure_enabled=True)
    checkout = page_checkout(link)
    _with_card(checkout.session, number)
    method = {"method": "checkout-session", "id": str(checkout.session.pk), "redirect_url": "https://shop.example/paid"}
    answer = _pay(checkout.token, checkout.session.pk, payment_method=method)
    assert answer.status_code == 201, answer.content
    assert answer.json()["status"] == "buyer_approval_pending"
    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.PROCESSING
    return link, urlsplit(answer.json()["payment_method"]["approval_url"]).path


def _answer(path: str) -> None:
    browser = Client()
    page = browser.get(path)
    match = re.search(r'name="form_token" value="([^"]+)"', page.content.decode())
    assert match, page.content
    assert browser.post(path, {"form_token": match.group(1), "action": "complete"}).status_code == 303


@pytest.mark.parametrize(
    ("number", "status"),
    [(CHALLENGE_Y, PaymentLinkStatus.COMPLETED), (CHALLENGE_N, PaymentLinkStatus.ACTIVE)],
    ids=["authenticated", "not-authenticated"],
)
def test_the_challenge_s_answer_settles_the_link_at_once(number, status):
    link, path = _challenged(number)

    _answer(path)

    assert PaymentLink.objects.get(pk=link.pk).status == status


def test_a_link_that_cannot_record_it_leaves_the_buyer_s_answer_standing_for_the_job(monkeypatch, caplog):
    link, path = _challenged(CHALLENGE_Y)

    def broken(**kwargs):
        raise RuntimeError("the link's row could not be read")

    with monkeypatch.context() as patched:
        patched.setattr("paymentlinks.services.payment_link_sync", broken)
        _answer(path)  # the buyer is still sent back: the payment is recorded

    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.PROCESSING
    assert "could not record how its payment ended" in caplog.text
    assert payment_links_tend()["settled"] == 1
    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.COMPLETED


def test_a_challenge_nobody_answered_gives_the_link_back_as_it_expires():
    link, _ = _challenged(CHALLENGE_Y)

    assert challenges_expire(now=timezone.now() + timedelta(days=1)) == 1

    assert PaymentLink.objects.get(pk=link.pk).status == PaymentLinkStatus.ACTIVE
