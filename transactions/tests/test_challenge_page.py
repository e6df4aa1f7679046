"""The 3-D Secure challenge page: shown once, completed with its own form token, then the buyer is sent to the
payment's `redirect_url`; everything else is an honest page and changes nothing. docs/three-d-secure.md."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from giftcards.tests.factories import IssuedGiftCardFactory
from transactions.models import ThreeDSecureChallenge, Transaction
from transactions.tests.test_three_d_secure import CHALLENGE_N, authorizations

pytestmark = pytest.mark.django_db

TIMEOUT_RESULT = "4000000000003063"


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def form_token(page) -> str:
    match = re.search(r'name="form_token" value="([^"]+)"', page.content.decode())
    assert match, page.content
    return match.group(1)


def assert_honest_page(response, status: int) -> None:
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    assert b"Authentication unavailable" in response.content
    assert b"form_token" not in response.content


def status_of(transaction_id: str) -> str:
    return Transaction.objects.get(pk=transaction_id).status


def test_the_page_shows_the_amount_and_merchant_and_no_card_number(challenged, merchant_account):
    _, path = challenged()

    page = Client().get(path)

    assert page.status_code == 200
    html = page.content.decode()
    assert "$12.99" in html  # as Embed around it writes the amount, never "USD 12.99" beside "$12.99"
    assert "USD 12.99" not in html
    assert merchant_account.display_name in html
    assert "ending 3220" in html
    assert "4000000000003220" not in html
    assert "400000" not in html
    assert "Confirm payment" in html
    assert "Cancel" in html


def test_the_page_may_be_framed_by_the_merchants_origins_only(challenged):
    _, path = challenged()

    page = Client().get(path)

    assert "X-Frame-Options" not in page
    policy = page["Content-Security-Policy"]
    assert "frame-ancestors 'self' https://shop.example" in policy
    assert "form-action 'self' https://shop.example" in policy
    assert page["Referrer-Policy"] == "no-referrer"
    assert page["Cache-Control"] == "no-store"


def test_completing_a_challenge_that_passes_authorizes_through_the_processor_and_redirects(challenged, connector):
    transaction_id, path = challenged()
    browser = Client()
    page = browser.get(path)

    done = browser.post(path, {"form_token": form_token(page), "action": "complete"})

    assert done.status_code == 303
    location = urlsplit(done["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == "https://shop.example/return"
    assert parse_qs(location.query) == {
        "order": ["42"],
        "transaction_id": [transaction_id],
        "transaction_status": ["authorization_succeeded"],
    }
    txn = Transaction.objects.get(pk=transaction_id)
    assert txn.status == "authorization_succeeded"
    assert txn.three_d_secure["method"] == "challenge"
    assert txn.three_d_secure["status"] == "complete"
    [request] = authorizations(connector)
    assert request.three_d_secure.authentication_response == "Y"
    assert request.three_d_secure.directory_response == "C"


def test_a_stored_card_kept_at_the_processor_is_paid_with_its_token_after_the_challenge(
    api_client, challenged, connector, merchant_account
):
    """The payment waited for the buyer's challenge; resumed, its processor is sent its token of the stored card."""
    from paymentmethods.tests.factories import PaymentMethodFactory
    from paymentservices.models import PaymentService, PaymentServiceToken
    from transactions.tests.test_three_d_secure import CHALLENGE_Y, REDIRECT

    challenged()  # 3-D Secure on at the account's sandbox
    method = PaymentMethodFactory(merchant_account=merchant_account, number=CHALLENGE_Y)
    service = PaymentService.objects.get(merchant_account=merchant_account, definition_id="mock-card")
    writer = api_client(scopes=["payment-methods.write", "transactions.write"])
    kept = {"payment_service_id": str(service.pk), "redirect_url": "https://shop.example/back"}
    assert writer.post(f"/payment-methods/{method.pk}/payment-service-tokens", kept, format="json").status_code == 201
    token = PaymentServiceToken.objects.get().token
    stored = {"method": "id", "id": str(method.pk), "redirect_url": REDIRECT}
    body = writer.post(
        "/transactions", {"amount": 1299, "currency": "USD", "payment_method": stored}, format="json"
    ).json()
    assert body["status"] == "buyer_approval_pending", body
    path = urlsplit(body["payment_method"]["approval_url"]).path
    browser = Client()

    browser.post(path, {"form_token": form_token(browser.get(path)), "action": "complete"})

    assert status_of(body["id"]) == "authorization_succeeded"
    [request] = authorizations(connector)
    assert request.processor_token is not None
    assert request.processor_token.token == token


def test_a_failed_challenge_is_declined_without_the_processor_and_returns_gift_card_money(
    challenged, connector, merchant_account
):
    card = IssuedGiftCardFactory(merchant_account=merchant_account, amount=500)
    transaction_id, path = challenged(CHALLENGE_N, gift_cards=[{"number": card.number, "pin": card.pin, "amount": 300}])
    card.refresh_from_db()
    assert card.balance == 200  # debited while the challenge waits
    browser = Client()
    page = browser.get(path)

    done = browser.post(path, {"form_token": form_token(page), "action": "complete"})

    assert parse_qs(urlsplit(done["Location"]).query)["transaction_status"] == ["authorization_declined"]
    txn = Transaction.objects.get(pk=transaction_id)
    assert (txn.status, txn.error_code) == ("authorization_declined", "failed_buyer_approval")
    assert txn.three_d_secure["status"] == "declined"
    assert authorizations(connector) == []
    card.refresh_from_db()
    assert card.balance == 500


def test_a_challenge_that_times_out_fails(challenged, connector):
    transaction_id, path = challenged(TIMEOUT_RESULT)
    browser = Client()
    page = browser.get(path)

    browser.post(path, {"form_token": form_token(page), "action": "complete"})

    txn = Transaction.objects.get(pk=transaction_id)
    assert (txn.status, txn.error_code) == ("authorization_failed", "incomplete_buyer_approval")
    assert authorizations(connector) == []


def test_cancel_declines_even_a_challenge_that_would_pass(challenged, connector):
    transaction_id, path = challenged()
    browser = Client()
    page = browser.get(path)

    done = browser.post(path, {"form_token": form_token(page), "action": "cancel"})

    assert done.status_code == 303
    assert status_of(transaction_id) == "authorization_declined"
    assert authorizations(connector) == []


def test_the_page_opens_once(challenged):
    transaction_id, path = challenged()
    Client().get(path)

    assert_honest_page(Client().get(path), 410)
    assert status_of(transaction_id) == "buyer_approval_pending"


def test_a_completed_challenge_cannot_be_completed_again(challenged, connector):
    transaction_id, path = challenged()
    browser = Client()
    token = form_token(browser.get(path))
    browser.post(path, {"form_token": token, "action": "complete"})

    again = browser.post(path, {"form_token": token, "action": "cancel"})

    assert_honest_page(again, 410)
    assert status_of(transaction_id) == "authorization_succeeded"
    assert len(authorizations(connector)) == 1


def test_an_expired_challenge_shows_an_honest_page(challenged):
    transaction_id, path = challenged()
    ThreeDSecureChallenge.objects.filter(transaction_id=transaction_id).update(expires_at="2000-01-01T00:00:00Z")

    assert_honest_page(Client().get(path), 410)
    assert status_of(transaction_id) == "buyer_approval_pending"


@pytest.mark.parametrize("token", ["forged-token", "x" * 43, ""], ids=["short", "token-shaped", "empty-ish"])
def test_an_unknown_token_shows_an_honest_page(challenged, token):
    challenged()

    response = Client().get(f"/three-d-secure/challenges/{token or '-'}")

    assert_honest_page(response, 404)
    assert ThreeDSecureChallenge.objects.get().state == "pending"


@pytest.mark.parametrize("sent", [{}, {"form_token": "forged"}], ids=["missing", "forged"])
def test_a_post_without_the_pages_form_token_changes_nothing(challenged, connector, sent):
    transaction_id, path = challenged()
    browser = Client()
    browser.get(path)

    response = browser.post(path, {**sent, "action": "complete"})

    assert_honest_page(response, 400)
    assert status_of(transaction_id) == "buyer_approval_pending"
    assert authorizations(connector) == []


def test_a_post_before_the_page_was_opened_changes_nothing(challenged, connector):
    transaction_id, path = challenged()

    assert_honest_page(Client().post(path, {"form_token": "anything", "action": "complete"}), 400)
    assert status_of(transaction_id) == "buyer_approval_pending"


def test_another_transactions_form_token_does_not_complete_this_one(challenged, connector):
    first_id, first_path = challenged()
    second_id, second_path = challenged()
    browser = Client()
    browser.get(first_path)
    second_token = form_token(browser.get(second_path))

    response = browser.post(first_path, {"form_token": second_token, "action": "complete"})

    assert_honest_page(response, 400)
    assert status_of(first_id) == status_of(second_id) == "buyer_approval_pending"


def test_a_canceled_transaction_ends_its_challenge(challenged, client, connector):
    transaction_id, path = challenged()
    assert client.post(f"/transactions/{transaction_id}/cancel").status_code == 200

    assert_honest_page(Client().get(path), 410)
    assert status_of(transaction_id) == "authorization_voided"


def test_other_methods_are_refused(challenged):
    _, path = challenged()

    response = Client().put(path)

    assert response.status_code == 405
    assert response["Allow"] == "GET, POST"


def test_the_approval_url_never_reaches_a_log(challenged, caplog):
    _, path = challenged()
    caplog.clear()

    Client().get(path)

    assert path.rsplit("/", 1)[1] not in caplog.text
