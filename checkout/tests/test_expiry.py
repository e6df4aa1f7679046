"""An expired session is gone on every path, and so is its card data: lazily when touched, or by the purge."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command

from checkout.models import CheckoutSession
from checkout.selectors import checkout_session_card
from checkout.services import checkout_sessions_purge_expired
from checkout.tests.factories import CheckoutSessionFactory
from payments.errors import NotFound
from payments.ops import purge
from payments.vault.models import VaultedCard
from payments.vault.services import vaulted_card_reveal

pytestmark = pytest.mark.django_db


@pytest.fixture
def expired(merchant_account, clock):
    session = CheckoutSessionFactory(with_card=True)
    clock.advance(minutes=5)  # exactly at `expires_at` a session is already gone
    return session


@pytest.mark.parametrize(
    ("method", "path", "scopes"),
    [
        ("get", "/checkout/sessions/{id}", ["checkout-sessions.read"]),
        ("put", "/checkout/sessions/{id}", ["checkout-sessions.write"]),
        ("delete", "/checkout/sessions/{id}", ["checkout-sessions.write"]),
        ("put", "/checkout/sessions/{id}/fields", []),
        ("post", "/checkout/sessions/{id}/fields", []),
    ],
)
def test_expired_session_is_404_everywhere_and_its_card_is_deleted_when_touched(
    api_client, expired, method, path, scopes
):
    body = {"payment_method": {"method": "card", "number": "4111111111111111", "expiration_date": "12/39"}}
    data = None if method == "get" else body  # a GET's data would be its query string
    response = getattr(api_client(scopes=scopes), method)(path.format(id=expired.id), data=data, format="json")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert not CheckoutSession.objects.exists()
    assert not VaultedCard.objects.exists()


def test_one_second_before_expiry_the_session_still_answers(api_client, merchant_account, clock):
    session = CheckoutSessionFactory(with_card=True)
    clock.advance(minutes=5, seconds=-1)
    assert api_client(scopes=["checkout-sessions.read"]).get(f"/checkout/sessions/{session.id}").status_code == 200


def test_fields_cut_a_long_session_to_five_minutes(api_client, anonymous_client, merchant_account, clock):
    client = api_client(scopes=["checkout-sessions.read", "checkout-sessions.write"])
    created = client.post("/checkout/sessions", {"expires_in": 86400}, format="json").json()
    body = {"payment_method": {"method": "card", "number": "4111111111111111", "expiration_date": "12/39"}}
    assert anonymous_client.post(f"/checkout/sessions/{created['id']}/fields", body, format="json").status_code == 204
    clock.advance(minutes=4, seconds=59)
    assert client.get(f"/checkout/sessions/{created['id']}").status_code == 200
    clock.advance(seconds=1)
    assert client.get(f"/checkout/sessions/{created['id']}").status_code == 404
    assert not VaultedCard.objects.exists()


class TestPurge:
    def test_the_job_is_registered(self):
        assert purge.registered_jobs()["checkout-sessions"] is checkout_sessions_purge_expired

    def test_deletes_expired_sessions_with_their_cards_in_batches(self, merchant_account, clock):
        gone = [CheckoutSessionFactory(with_card=True) for _ in range(3)]
        gone.append(CheckoutSessionFactory(expires_at=clock.now + timedelta(minutes=1)))
        clock.advance(minutes=10)
        live = CheckoutSessionFactory(with_card=True)

        assert checkout_sessions_purge_expired(now=clock.now, batch_size=2) == 2
        assert checkout_sessions_purge_expired(now=clock.now, batch_size=2) == 2
        assert checkout_sessions_purge_expired(now=clock.now, batch_size=2) == 0

        assert list(CheckoutSession.objects.all()) == [live]
        assert list(VaultedCard.objects.all()) == [live.card]
        assert not CheckoutSession.objects.filter(pk__in=[session.pk for session in gone]).exists()

    def test_purge_expired_command_is_safe_to_repeat(self, merchant_account, clock):
        CheckoutSessionFactory(with_card=True)
        live = CheckoutSessionFactory(expires_at=clock.now + timedelta(hours=1))
        clock.advance(minutes=6)
        out = io.StringIO()
        call_command("purge_expired", "--batch-size", "1", stdout=out)
        assert "checkout-sessions: 1 deleted" in out.getvalue() or "vaulted-cards: 1 deleted" in out.getvalue()
        assert list(CheckoutSession.objects.all()) == [live]
        assert not VaultedCard.objects.exists()
        call_command("purge_expired", stdout=io.StringIO())
        assert list(CheckoutSession.objects.all()) == [live]


class TestCardForTransactions:
    def test_returns_the_card_of_a_live_session(self, merchant_account):
        session = CheckoutSessionFactory(with_card=True)
        card = checkout_session_card(merchant_account=merchant_account, session_id=session.id)
        assert vaulted_card_reveal(card=card).number == "4111111111111111"

    def test_security_code_is_gone_after_the_first_authorization_attempt(self, merchant_account):
        session = CheckoutSessionFactory(with_card=True)
        card = checkout_session_card(merchant_account=merchant_account, session_id=session.id)
        assert vaulted_card_reveal(card=card, consume_security_code=True).security_code == "123"
        again = checkout_session_card(merchant_account=merchant_account, session_id=session.id)
        assert vaulted_card_reveal(card=again, consume_security_code=True).security_code is None

    def test_missing_expired_foreign_or_cardless_sessions_are_not_found(
        self, merchant_account, other_merchant_account, clock
    ):
        cardless = CheckoutSessionFactory()
        foreign = CheckoutSessionFactory(merchant_account=other_merchant_account, with_card=True)
        expiring = CheckoutSessionFactory(with_card=True)
        clock.advance(minutes=5)
        for session_id in (cardless.id, foreign.id, expiring.id, "not-a-uuid"):
            with pytest.raises(NotFound):
                checkout_session_card(merchant_account=merchant_account, session_id=session_id)
        assert not CheckoutSession.objects.filter(pk=expiring.pk).exists()
