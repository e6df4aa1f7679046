"""Secure Fields: `PUT|POST /checkout/sessions/{id}/fields` stores a card on a session, with no token."""

import json
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from checkout import stored_methods
from checkout.models import CheckoutSession
from checkout.tests.factories import CheckoutSessionFactory
from payments.vault.crypto import fingerprint
from payments.vault.models import VaultedCard
from payments.vault.services import vaulted_card_reveal

pytestmark = pytest.mark.django_db

VISA = "4111111111111111"
AMEX = "378282246310005"
_today = timezone.now().date()
FUTURE = f"12/{(_today.year + 3) % 100:02d}"
_last_month = (_today.replace(day=1) - timedelta(days=1)).replace(day=1)
LAST_MONTH = f"{_last_month.month:02d}/{_last_month.year % 100:02d}"


def this_month() -> str:
    """Read when the test runs, not when it is collected: a run that crosses a month's end must not send last month."""
    today = timezone.now().date()
    return f"{today.month:02d}/{today.year % 100:02d}"


def card(**overrides) -> dict:
    return {"payment_method": {"method": "card", "number": VISA, "expiration_date": FUTURE, **overrides}}


def fields_url(session) -> str:
    return f"/checkout/sessions/{session.id}/fields"


def send(client, session, payload, method: str = "put"):
    body = payload if isinstance(payload, str | bytes) else json.dumps(payload)
    return getattr(client, method)(fields_url(session), data=body, content_type="application/json")


@pytest.fixture
def session(merchant_account):
    return CheckoutSessionFactory()


class TestStoring:
    @pytest.mark.parametrize("method", ["put", "post"])
    @pytest.mark.parametrize(
        ("payload", "number", "code"),
        [
            pytest.param(card(security_code="123"), VISA, "123", id="visa-with-code"),
            pytest.param(card(number=AMEX, security_code="1234"), AMEX, "1234", id="amex-with-4-digit-code"),
            pytest.param(card(), VISA, None, id="no-code"),
            pytest.param(card(security_code=None), VISA, None, id="null-code"),
            pytest.param(lambda: card(expiration_date=this_month()), VISA, None, id="expires-this-month"),
            pytest.param(card(number="4222222222222"), "4222222222222", None, id="13-digits"),
            pytest.param(card(number="6200000000000000000"), "6200000000000000000", None, id="19-digits"),
            pytest.param(
                {**card(number="2223003122003222", security_code="321"), "postal_code": "94103"},
                "2223003122003222",
                "321",
                id="mastercard-2-series-with-postal-code",
            ),
        ],
    )
    def test_stores_the_card_in_the_vault_and_answers_204(
        self, anonymous_client, session, method, payload, number, code
    ):
        payload = payload() if callable(payload) else payload
        response = send(anonymous_client, session, payload, method)
        assert response.status_code == 204
        assert response.content == b""
        session.refresh_from_db()
        assert session.postal_code == payload.get("postal_code")
        details = vaulted_card_reveal(card=session.card)
        assert (details.number, details.security_code) == (number, code)
        assert session.card.fingerprint == fingerprint(number)

    def test_expiry_parts_and_display_data_are_kept(self, anonymous_client, session):
        send(anonymous_client, session, card(expiration_date="07/39"))
        stored = VaultedCard.objects.get()
        assert (stored.expiration_month, stored.expiration_year) == (7, 2039)
        assert (stored.bin, stored.last4, stored.scheme) == ("411111", "1111", "visa")

    def test_the_session_then_expires_within_five_minutes(self, anonymous_client, session, clock):
        assert session.expires_at > clock.now + timedelta(minutes=5)
        send(anonymous_client, session, card(security_code="123"))
        session.refresh_from_db()
        assert session.expires_at == clock.now + timedelta(minutes=5)
        assert session.card.expires_at == session.expires_at
        assert session.card.security_code_expires_at == session.expires_at

    def test_a_session_about_to_expire_is_not_extended(self, anonymous_client, merchant_account, clock):
        session = CheckoutSessionFactory(expires_at=clock.now + timedelta(minutes=2))
        send(anonymous_client, session, card())
        session.refresh_from_db()
        assert session.expires_at == clock.now + timedelta(minutes=2)

    def test_storing_again_replaces_the_card(self, anonymous_client, session, clock):
        send(anonymous_client, session, {**card(security_code="123"), "postal_code": "94103"})
        first = CheckoutSession.objects.get().card
        clock.advance(minutes=1)
        assert send(anonymous_client, session, card(number=AMEX, security_code="1234")).status_code == 204
        session.refresh_from_db()
        assert list(VaultedCard.objects.all()) == [session.card]
        assert session.card.pk != first.pk
        assert session.postal_code is None
        assert vaulted_card_reveal(card=session.card).number == AMEX
        # Replacing never extends: the first store already started the 5 minutes.
        assert session.expires_at == clock.now + timedelta(minutes=4)


class TestNoToken:
    @pytest.mark.parametrize(
        "authorization",
        ["", "Bearer not-a-jwt", "Basic dXNlcjpwYXNz", "Bearer"],
        ids=["none", "garbage-bearer", "basic", "empty-bearer"],
    )
    def test_any_authorization_header_is_ignored(self, anonymous_client, session, authorization):
        response = anonymous_client.put(
            fields_url(session), data=card(), format="json", HTTP_AUTHORIZATION=authorization
        )
        assert response.status_code == 204
        assert "WWW-Authenticate" not in response

    def test_a_valid_token_changes_nothing_either(self, api_client, session, other_merchant_account):
        # Wrong scope and another account in the header: still only the session id counts.
        client = api_client(scopes=["buyers.read"], merchant_account_id="other")
        assert send(client, session, card()).status_code == 204

    def test_the_session_id_alone_reaches_any_accounts_session(self, anonymous_client, other_merchant_account):
        theirs = CheckoutSessionFactory(merchant_account=other_merchant_account)
        assert send(anonymous_client, theirs, card()).status_code == 204
        assert VaultedCard.objects.get().merchant_account == other_merchant_account


class TestMissingSessions:
    @pytest.mark.parametrize("session_id", ["not-a-uuid", "4137b1cf-39ac-42a8-bad6-1c680d5dab6b"])
    def test_unknown_session_is_404(self, anonymous_client, merchant_account, session_id):
        response = anonymous_client.put(f"/checkout/sessions/{session_id}/fields", data=card(), format="json")
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"
        assert not VaultedCard.objects.exists()

    def test_expired_session_is_404_and_nothing_is_stored(self, anonymous_client, merchant_account, clock):
        session = CheckoutSessionFactory(expires_at=clock.now)
        assert send(anonymous_client, session, card()).status_code == 404
        assert not VaultedCard.objects.exists()
        assert not CheckoutSession.objects.exists()

    def test_other_methods_are_405(self, anonymous_client, session):
        for method in ("get", "delete", "patch"):
            assert getattr(anonymous_client, method)(fields_url(session)).status_code == 405


BAD_FIELDS = [
    pytest.param(card(number="4111111111111112"), "/payment_method/number", id="luhn"),
    pytest.param(card(expiration_date=LAST_MONTH), "/payment_method/expiration_date", id="expired-last-month"),
    pytest.param(card(expiration_date="13/30"), "/payment_method/expiration_date", id="month-13"),
    pytest.param(card(expiration_date="00/30"), "/payment_method/expiration_date", id="month-00"),
    pytest.param(card(expiration_date="12/2030"), "/payment_method/expiration_date", id="four-digit-year"),
    pytest.param(card(expiration_date="ab/cd"), "/payment_method/expiration_date", id="expiry-letters"),
    pytest.param(card(number="4111a11111111111"), "/payment_method/number", id="number-letters"),
    pytest.param(card(number="4111 1111 1111 1111"), "/payment_method/number", id="number-spaces"),
    pytest.param(card(number="411111111116"), "/payment_method/number", id="12-digits"),
    pytest.param(card(number="41111111111111111113"), "/payment_method/number", id="20-digits"),
    pytest.param(card(number=4111111111111111), "/payment_method/number", id="number-as-json-number"),
    pytest.param(card(number=""), "/payment_method/number", id="number-empty"),
    pytest.param(card(security_code="12"), "/payment_method/security_code", id="2-digit-code"),
    pytest.param(card(security_code="12345"), "/payment_method/security_code", id="5-digit-code"),
    pytest.param(card(number=AMEX, security_code="123"), "/payment_method/security_code", id="3-digit-code-for-amex"),
    pytest.param(card(security_code="1234"), "/payment_method/security_code", id="4-digit-code-for-visa"),
    pytest.param(card(security_code="12a"), "/payment_method/security_code", id="code-letters"),
    pytest.param(card(security_code=123), "/payment_method/security_code", id="code-as-json-number"),
    pytest.param(card(cardholder="J DOE"), "/payment_method/cardholder", id="extra-card-field"),
    pytest.param({**card(), "amount": 100}, "/amount", id="extra-top-level-field"),
    pytest.param(
        {"payment_method": {"method": "click-to-pay", "merchant_transaction_id": "x"}},
        "/payment_method/method",
        id="click-to-pay",
    ),
    pytest.param({"payment_method": {"method": "paypal"}}, "/payment_method/method", id="unknown-method"),
    pytest.param({"payment_method": {"method": "id"}}, "/payment_method/id", id="stored-method-without-id"),
    pytest.param({"payment_method": {"method": "id", "id": "x"}}, "/payment_method/id", id="stored-method-bad-id"),
    pytest.param(
        {"payment_method": {"method": "id", "id": "ef9496d8-53a5-4aad-8ca2-00eb68334389", "security_code": "12"}},
        "/payment_method/security_code",
        id="stored-method-2-digit-code",
    ),
    pytest.param(
        {"payment_method": {"method": "id", "id": "ef9496d8-53a5-4aad-8ca2-00eb68334389", "number": VISA}},
        "/payment_method/number",
        id="stored-method-with-a-number",
    ),
    pytest.param(
        {"payment_method": {"number": VISA, "expiration_date": FUTURE}}, "/payment_method/method", id="no-method"
    ),
    pytest.param(card(expiration_date=None), "/payment_method/expiration_date", id="expiry-null"),
    pytest.param(
        {"payment_method": {"method": "card", "number": VISA}}, "/payment_method/expiration_date", id="no-expiry"
    ),
    pytest.param(
        {"payment_method": {"method": "card", "expiration_date": FUTURE}}, "/payment_method/number", id="no-number"
    ),
    pytest.param({}, "/payment_method", id="empty-object"),
    pytest.param({"payment_method": None}, "/payment_method", id="payment-method-null"),
    pytest.param({"payment_method": VISA}, "/payment_method", id="payment-method-string"),
    pytest.param({**card(), "postal_code": ""}, "/postal_code", id="postal-code-empty"),
    pytest.param({**card(), "postal_code": "9" * 51}, "/postal_code", id="postal-code-too-long"),
    pytest.param([card()], "/", id="array"),
    pytest.param("null", "/", id="json-null"),
    pytest.param("", "/payment_method", id="empty-body"),
    pytest.param('{"payment_method": {"number": "4111111111111111"', "/", id="truncated-json"),
    pytest.param("number=4111111111111111", "/", id="not-json"),
]


class TestBadInput:
    @pytest.mark.parametrize(("payload", "pointer"), BAD_FIELDS)
    def test_is_a_400_naming_the_field_and_stores_nothing(self, anonymous_client, session, payload, pointer):
        before = CheckoutSession.objects.values().get()
        response = send(anonymous_client, session, payload)
        assert response.status_code == 400
        body = response.json()
        assert (body["type"], body["code"]) == ("error", "bad_request")
        assert pointer in [detail["pointer"] for detail in body["details"]]
        assert not VaultedCard.objects.exists()
        assert CheckoutSession.objects.values().get() == before
        # Neither the number nor the code comes back, not even the invalid ones.
        for secret in ("4111111111111112", "4111111111111111", "41111111111111111113", "12345", "12a"):
            assert secret not in response.content.decode()

    def test_a_card_number_where_a_name_or_value_is_expected_is_not_echoed(self, anonymous_client, session):
        payload = {"payment_method": {"method": VISA}, VISA: VISA}
        response = send(anonymous_client, session, payload)
        assert response.status_code == 400
        assert VISA not in response.content.decode()
        assert "411111******1111" in response.content.decode()

    def test_other_content_types_are_refused(self, anonymous_client, session):
        response = anonymous_client.put(
            fields_url(session), data=f"payment_method[number]={VISA}", content_type="application/x-www-form-urlencoded"
        )
        assert response.status_code == 415
        assert not VaultedCard.objects.exists()


def test_with_no_app_keeping_stored_methods_an_id_is_not_found(anonymous_client, session, monkeypatch):
    monkeypatch.setattr(stored_methods, "_finders", [])
    before = CheckoutSession.objects.values().get()

    response = send(anonymous_client, session, {"payment_method": {"method": "id", "id": str(uuid.uuid4())}})

    assert response.status_code == 404
    assert [detail["pointer"] for detail in response.json()["details"]] == ["/payment_method/id"]
    assert CheckoutSession.objects.values().get() == before
