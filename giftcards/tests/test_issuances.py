"""`POST /gift-cards/issuances` and the page that shows an issued card once (docs/gift-cards.md, "Issuing over the
API"): the answer, themes, limits, bad input, idempotency, the audit log, the page's states and the purge."""

import io
import logging
import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from conftest import TEST_CARD_KEYS
from giftcards.issuances import (
    gift_card_issuance_reveal,
    gift_card_issuances_count_stale,
    gift_card_issuances_purge_expired,
    page_token,
)
from giftcards.models import GiftCardIssuance, GiftCardService, IssuedGiftCard, LedgerEntry
from giftcards.services import issued_card_check
from payments.audit.models import AuditLogEntry
from payments.rest.models import IdempotencyRecord
from payments.tests.assertions import assert_error
from payments.tests.races import at_once
from payments.validators import MAX_AMOUNT
from payments.vault import crypto

pytestmark = pytest.mark.django_db

ISSUANCE_KEYS = {
    "type",
    "id",
    "merchant_account_id",
    "gift_card_service",
    "gift_card_service_payment_issuance_id",
    "url",
    "amount",
    "currency",
    "external_identifier",
    "created_at",
    "updated_at",
}
BODY = {"theme": "birthday", "amount": 2500, "currency": "EUR", "external_identifier": "order-1"}
NUMBER_AND_PIN = re.compile(r'<dd class="secret">([\d ]+)</dd>\s*<dt>PIN</dt><dd class="secret">(\d+)</dd>')


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["gift-cards.write"])


def issue(client, body=None, **headers):
    return client.post("/gift-cards/issuances", body or BODY, format="json", **headers)


def page_path(url: str) -> str:
    return url.removeprefix("http://testserver")


def without_nonce(response) -> str:
    return re.sub(r'nonce="[^"]*"', "", response.content.decode())


def reveal(url: str, anonymous) -> tuple[str, str]:
    page = anonymous.post(page_path(url))
    assert page.status_code == 200, page.content
    number, pin = NUMBER_AND_PIN.search(page.content.decode()).groups()
    return number.replace(" ", ""), pin


def test_issue_answers_the_issuance_with_a_page_and_no_number_or_pin(client, merchant_account):
    response = issue(client)

    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == ISSUANCE_KEYS
    issuance = GiftCardIssuance.objects.select_related("issued_card").get()
    card = issuance.issued_card
    assert body["type"] == "gift-card-issuance"
    assert body["id"] == str(issuance.id)
    assert body["gift_card_service_payment_issuance_id"] == str(card.id)
    assert body["gift_card_service"]["gift_card_service_definition_id"] == "mock-gift-card"
    assert (body["amount"], body["currency"], body["external_identifier"]) == (2500, "EUR", "order-1")
    assert body["url"] == f"http://testserver/gift-card-issuances/{issuance.id}/{page_token(issuance.id)}"
    assert (card.balance, card.currency, card.status) == (2500, "EUR", IssuedGiftCard.Status.ACTIVE)
    assert list(card.ledger.values_list("kind", "amount")) == [(LedgerEntry.Kind.ISSUE, 2500)]
    assert issuance.theme == "birthday"
    assert issuance.sealed_secret is not None


def test_the_page_shows_the_card_once_and_the_card_works(client, merchant_account):
    url = issue(client).json()["url"]
    anonymous = type(client)()

    waiting = anonymous.get(page_path(url))
    assert waiting.status_code == 200
    assert "Show my gift card" in waiting.content.decode()
    assert waiting["Cache-Control"] == "no-store"
    assert waiting["Referrer-Policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in waiting["Content-Security-Policy"]

    number, pin = reveal(url, anonymous)
    card = issued_card_check(merchant_account=merchant_account, number=number, pin=pin)
    assert card == GiftCardIssuance.objects.get().issued_card
    issuance = GiftCardIssuance.objects.get()
    assert issuance.sealed_secret is None
    assert issuance.revealed_at is not None

    for again in (anonymous.get(page_path(url)), anonymous.post(page_path(url))):
        assert again.status_code == 404
        assert again["Content-Type"].startswith("text/html")
        assert "no longer available" in again.content.decode()
        assert number not in again.content.decode()


def test_a_wrong_token_or_a_late_visit_is_the_same_gone_page(client):
    url = issue(client).json()["url"]
    issuance = GiftCardIssuance.objects.get()
    anonymous = type(client)()

    forged = anonymous.post(f"/gift-card-issuances/{issuance.id}/{page_token(issuance.id)[:-2]}xx")
    assert forged.status_code == 404
    assert GiftCardIssuance.objects.get().sealed_secret is not None  # a wrong address spends nothing

    GiftCardIssuance.objects.filter(pk=issuance.pk).update(reveal_until=timezone.now() - timedelta(seconds=1))
    late = anonymous.post(page_path(url))
    assert late.status_code == 404
    assert without_nonce(late) == without_nonce(forged)


def test_the_purge_forgets_sealed_copies_nobody_opened_in_time(client):
    issue(client)
    issue(client, {**BODY, "external_identifier": "order-2"})
    stale, fresh = GiftCardIssuance.objects.order_by("created_at")
    GiftCardIssuance.objects.filter(pk=stale.pk).update(reveal_until=timezone.now() - timedelta(seconds=1))

    assert gift_card_issuances_purge_expired(now=timezone.now(), batch_size=10) == 1

    stale.refresh_from_db()
    fresh.refresh_from_db()
    assert (stale.sealed_secret, fresh.sealed_secret is not None) == (None, True)
    assert IssuedGiftCard.objects.count() == 2  # the cards and their money stay


def test_neither_number_nor_pin_reaches_a_log(client, merchant_account, caplog):
    caplog.set_level(logging.DEBUG)
    url = issue(client).json()["url"]
    number, pin = reveal(url, type(client)())

    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert number not in logged
    assert pin not in logged


# --- themes ---------------------------------------------------------------------------------------


def test_a_configured_account_refuses_an_unknown_theme_by_name(client, merchant_account):
    GiftCardService.objects.create(merchant_account=merchant_account, themes=["birthday", "thank-you"])

    assert issue(client, {**BODY, "theme": "thank-you"}).status_code == 201
    body = assert_error(issue(client, {**BODY, "theme": "wedding"}), 400, "/theme")
    assert "wedding" in body["details"][0]["message"]
    assert GiftCardIssuance.objects.count() == 1


# --- bad input and limits -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"theme": ""}, "/theme"),
        ({"theme": "x" * 201}, "/theme"),
        ({"theme": None}, "/theme"),
        ({"amount": 0}, "/amount"),
        ({"amount": MAX_AMOUNT + 1}, "/amount"),
        ({"amount": 12.5}, "/amount"),
        ({"amount": "100"}, "/amount"),
        ({"currency": "usd"}, "/currency"),
        ({"currency": "XXX"}, "/currency"),
        ({"external_identifier": ""}, "/external_identifier"),
        ({"number": "6035710000000000000"}, "/number"),
    ],
    ids=[
        "empty-theme",
        "long-theme",
        "null-theme",
        "zero-amount",
        "amount-above-the-largest",
        "fractional-amount",
        "string-amount",
        "lower-case-currency",
        "no-money-currency",
        "empty-external-identifier",
        "unknown-field",
    ],
)
def test_bad_input_is_a_400_and_writes_nothing(client, change, pointer):
    assert_error(issue(client, {**BODY, **change}), 400, pointer)
    assert not GiftCardIssuance.objects.exists()
    assert not IssuedGiftCard.objects.exists()


@pytest.mark.parametrize("missing", ["theme", "amount", "currency"])
def test_each_required_field_is_named(client, missing):
    body = {name: value for name, value in BODY.items() if name != missing}
    assert_error(issue(client, body), 400, f"/{missing}")


def test_the_largest_amount_is_issued(client):
    assert issue(client, {**BODY, "amount": MAX_AMOUNT}).status_code == 201


@pytest.mark.parametrize("scopes", [["gift-cards.read"], ["embed"], ["buyers.write"]], ids=str)
def test_only_gift_cards_write_issues(api_client, merchant_account, scopes):
    client = api_client(scopes=scopes, embed={"amount": 100, "currency": "USD"} if "embed" in scopes else None)
    assert_error(issue(client), 403)
    assert not GiftCardIssuance.objects.exists()


def test_no_token_is_a_401(merchant_account):
    assert_error(issue(APIClient()), 401)


# --- idempotency and audit ------------------------------------------------------------------------


def test_an_idempotency_key_replays_the_issuance_and_issues_one_card(client):
    first = issue(client, HTTP_IDEMPOTENCY_KEY="issue-1")
    again = issue(client, HTTP_IDEMPOTENCY_KEY="issue-1")

    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()  # the page's address is made again, not stored
    assert GiftCardIssuance.objects.count() == IssuedGiftCard.objects.count() == 1
    assert str(GiftCardIssuance.objects.get().id) == first.json()["id"]
    assert_error(issue(client, {**BODY, "amount": 1}, HTTP_IDEMPOTENCY_KEY="issue-1"), 400, "/idempotency-key")


def test_the_stored_answer_holds_no_page_address(client):
    url = issue(client, HTTP_IDEMPOTENCY_KEY="issue-2").json()["url"]

    stored = IdempotencyRecord.objects.get().response_body
    assert page_token(GiftCardIssuance.objects.get().id) not in stored
    assert url not in stored


def test_a_refused_issuance_frees_its_key(client):
    assert_error(issue(client, {**BODY, "amount": 0}, HTTP_IDEMPOTENCY_KEY="issue-3"), 400, "/amount")
    assert issue(client, HTTP_IDEMPOTENCY_KEY="issue-3").status_code == 201


def test_the_audit_log_records_the_issuance(client):
    issuance_id = issue(client).json()["id"]

    entry = AuditLogEntry.objects.get(resource_type="gift-card-issuance")
    assert (entry.action, entry.resource_id, entry.merchant_account_id) == ("created", issuance_id, "default")


def test_another_accounts_key_issues_into_its_own_account(api_client, merchant_account, other_merchant_account):
    client = api_client(scopes=["gift-cards.write"], merchant_account_id=other_merchant_account.id)
    # A key bound to `default` may not reach another account.
    assert issue(client).status_code in (401, 403)
    assert not GiftCardIssuance.objects.exists()


def test_rotate_card_keys_reseals_cards_waiting_to_be_shown(client, settings):
    url = issue(client).json()["url"]
    new = "new:" + crypto.generate_key_spec("x").split(":", 1)[1]
    settings.CARD_ENCRYPTION_KEYS = [new, TEST_CARD_KEYS[0]]
    assert gift_card_issuances_count_stale() == 1

    call_command("rotate_card_keys", stdout=io.StringIO())

    settings.CARD_ENCRYPTION_KEYS = [new]  # the old key can go now
    assert gift_card_issuances_count_stale() == 0
    assert reveal(url, type(client)())[1]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_openings_show_the_card_once(client):
    issuance = GiftCardIssuance.objects.get(pk=issue(client).json()["id"])
    token = page_token(issuance.id)

    results = at_once([lambda: gift_card_issuance_reveal(issuance_id=issuance.id, token=token)] * 10)

    assert sum(result is not None for result in results) == 1
