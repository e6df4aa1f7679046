"""Secure Fields' stored-method form: `{"payment_method": {"method": "id", "id": ..., "security_code": ...}}` puts a
stored payment method on a checkout session with the security code the buyer typed for it (upstream's way of
collecting a CVV for a saved card), and a transaction paying with the session uses that stored card with that code.
"""

import json
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from buyers.tests.factories import BuyerFactory
from checkout.models import CheckoutSession
from checkout.services import checkout_session_delete, checkout_sessions_purge_expired
from checkout.tests.factories import CheckoutSessionFactory
from paymentmethods.models import PaymentMethod
from paymentmethods.services import payment_method_delete
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.tests.assertions import assert_error
from payments.vault.models import VaultedCard, VaultedSecurityCode
from payments.vault.services import vaulted_card_reveal
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

AMEX = "378282246310005"


@pytest.fixture
def method(merchant_account):
    return PaymentMethodFactory(merchant_account=merchant_account)


@pytest.fixture
def session(merchant_account):
    return CheckoutSessionFactory(merchant_account=merchant_account)


@pytest.fixture
def server(api_client):
    return api_client(scopes=["transactions.read", "transactions.write", "checkout-sessions.read"])


def put_fields(client, session, payment_method, method="put", **fields):
    body = json.dumps({"payment_method": payment_method, **fields})
    return getattr(client, method)(f"/checkout/sessions/{session.pk}/fields", body, content_type="application/json")


def stored(method, **fields):
    return {"method": "id", "id": str(method.pk), **fields}


def pay(client, session, **fields):
    body = {"amount": 1299, "currency": "USD", "payment_method": {"method": "checkout-session", "id": str(session.pk)}}
    return client.post("/transactions", {**body, **fields}, format="json")


def _unchanged(session):
    return CheckoutSession.objects.values().get(pk=session.pk)


# --- PUT|POST /checkout/sessions/{id}/fields -------------------------------------------------------------------


@pytest.mark.parametrize("verb", ["put", "post"])
def test_the_session_holds_the_method_and_its_code_sealed_like_a_cards(anonymous_client, server, session, method, verb):
    before = timezone.now()
    response = put_fields(anonymous_client, session, stored(method, security_code="321"), verb, postal_code="94103")

    assert (response.status_code, response.content) == (204, b"")
    session.refresh_from_db()
    assert (session.payment_method_id, session.stored_card_id, session.card_id) == (method.pk, method.card_id, None)
    assert session.postal_code == "94103"
    assert before < session.expires_at <= timezone.now() + timedelta(minutes=5)  # as when a card arrives
    code = VaultedSecurityCode.objects.get()
    assert (session.security_code_id, code.card_id, code.expires_at) == (code.pk, method.card_id, session.expires_at)
    assert "321" not in code.encrypted_security_code
    assert VaultedCard.objects.get(pk=method.card_id).encrypted_security_code is None  # never on the stored card
    assert VaultedCard.objects.count() == 1  # and no copy of the number
    shown = server.get(f"/checkout/sessions/{session.pk}").json()["payment_method"]
    assert shown == {
        "type": "payment-method",
        "id": str(method.pk),
        "method": "card",
        "label": "1111",
        "scheme": "visa",
        "fingerprint": method.fingerprint,
        "details": {"bin": "411111", "card_type": None, "card_country": None, "card_issuer_name": None},
    }


@pytest.mark.parametrize("code", [None, "absent"])
def test_without_a_code_the_session_holds_the_method_alone(anonymous_client, session, method, code):
    payment_method = stored(method) if code == "absent" else stored(method, security_code=None)

    assert put_fields(anonymous_client, session, payment_method).status_code == 204

    session.refresh_from_db()
    assert (session.payment_method_id, session.security_code_id) == (method.pk, None)
    assert not VaultedSecurityCode.objects.exists()


def test_a_method_of_no_buyer_can_be_chosen_too(anonymous_client, session, merchant_account):
    unowned = PaymentMethodFactory(merchant_account=merchant_account, buyer=None)

    assert put_fields(anonymous_client, session, stored(unowned, security_code="123")).status_code == 204


@pytest.mark.parametrize("case", ["missing", "another-account", "deleted"])
def test_a_method_the_sessions_account_has_not_is_refused_as_missing(
    anonymous_client, session, merchant_account, other_merchant_account, case
):
    method = PaymentMethodFactory(
        merchant_account=other_merchant_account if case == "another-account" else merchant_account
    )
    method_id = uuid.uuid4() if case == "missing" else method.pk
    if case == "deleted":
        payment_method_delete(method=method)
    before = _unchanged(session)

    response = put_fields(anonymous_client, session, {"method": "id", "id": str(method_id), "security_code": "123"})
    missing = put_fields(anonymous_client, session, {"method": "id", "id": str(uuid.uuid4())})

    assert_error(response, 404, "/payment_method/id")
    assert response.json() == missing.json()
    assert _unchanged(session) == before
    assert not VaultedSecurityCode.objects.exists()


def test_an_expired_card_and_a_code_of_the_wrong_length_are_refused_by_name(
    anonymous_client, session, merchant_account
):
    amex = PaymentMethodFactory(merchant_account=merchant_account, number=AMEX)
    expired = PaymentMethodFactory(merchant_account=merchant_account, number="5555555555554444")
    VaultedCard.objects.filter(pk=expired.card_id).update(expiration_month=1, expiration_year=2024)
    before = _unchanged(session)

    assert_error(
        put_fields(anonymous_client, session, stored(amex, security_code="123")), 400, "/payment_method/security_code"
    )
    assert_error(put_fields(anonymous_client, session, stored(expired, security_code="123")), 400, "/payment_method/id")
    assert _unchanged(session) == before
    assert not VaultedSecurityCode.objects.exists()


def test_each_put_replaces_what_the_session_held_and_deletes_its_card_data(anonymous_client, session, merchant_account):
    first = PaymentMethodFactory(merchant_account=merchant_account)
    second = PaymentMethodFactory(merchant_account=merchant_account, number="5555555555554444")
    card = {"method": "card", "number": "4000056655665556", "expiration_date": "12/39", "security_code": "999"}

    put_fields(anonymous_client, session, card)
    session_card = CheckoutSession.objects.get(pk=session.pk).card_id
    put_fields(anonymous_client, session, stored(first, security_code="111"))
    assert not VaultedCard.objects.filter(pk=session_card).exists()  # the card left through Secure Fields went
    first_code = CheckoutSession.objects.get(pk=session.pk).security_code_id
    put_fields(anonymous_client, session, stored(second, security_code="222"))
    assert not VaultedSecurityCode.objects.filter(pk=first_code).exists()
    put_fields(anonymous_client, session, card)

    held = CheckoutSession.objects.get(pk=session.pk)
    assert (held.payment_method_id, held.stored_card_id, held.security_code_id) == (None, None, None)
    assert vaulted_card_reveal(card=held.card).security_code == "999"
    assert not VaultedSecurityCode.objects.exists()
    assert (
        VaultedCard.objects.filter(pk__in=[first.card_id, second.card_id]).count() == 2
    )  # the methods' own cards stay


def test_deleting_or_purging_the_session_deletes_the_code_not_the_stored_card(
    anonymous_client, merchant_account, method
):
    deleted, expired = CheckoutSessionFactory(merchant_account=merchant_account), CheckoutSessionFactory()
    for session in (deleted, expired):
        put_fields(anonymous_client, session, stored(method, security_code="321"))

    checkout_session_delete(session=deleted)
    checkout_sessions_purge_expired(now=timezone.now() + timedelta(minutes=6), batch_size=10)

    assert not CheckoutSession.objects.exists()
    assert not VaultedSecurityCode.objects.exists()
    assert PaymentMethod.objects.get().card_id == method.card_id
    assert VaultedCard.objects.filter(pk=method.card_id).exists()


@pytest.mark.parametrize("page", ["", "{id}/change/"])
def test_support_sees_the_stored_method_masked_and_never_the_code(
    anonymous_client, support_client, session, method, page
):
    put_fields(anonymous_client, session, stored(method, security_code="321"))

    html = support_client.get("/admin/checkout/checkoutsession/" + page.format(id=session.pk)).content.decode()

    assert f"visa 411111…1111 (stored payment method {method.pk})" in html
    assert "4111111111111111" not in html
    assert VaultedSecurityCode.objects.get().encrypted_security_code not in html


# --- POST /transactions with that session ----------------------------------------------------------------------


def test_a_payment_with_the_session_uses_the_stored_card_with_the_typed_code_once(
    anonymous_client, server, session, method
):
    put_fields(anonymous_client, session, stored(method, security_code="321"))

    response = pay(server, session)

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["cvv_response_code"]) == ("authorization_succeeded", "match")  # the code was sent
    assert (body["payment_method"]["id"], body["payment_method"]["label"]) == (str(method.pk), "1111")
    assert body["buyer"]["id"] == str(method.buyer_id)  # the method's own buyer
    txn = Transaction.objects.get()
    assert (txn.vaulted_card_id, txn.payment_method_id, txn.checkout_session_id) == (
        method.card_id,
        method.pk,
        session.pk,
    )
    assert not VaultedSecurityCode.objects.exists()  # deleted at this first authorization
    method.refresh_from_db()
    assert (method.usage_count, method.cit_usage_count) == (1, 1)
    again = pay(server, session).json()
    assert (again["status"], again["cvv_response_code"]) == ("authorization_succeeded", "not_provided")


def test_the_payment_checks_the_method_as_a_payment_naming_it_does(
    anonymous_client, server, session, method, merchant_account
):
    put_fields(anonymous_client, session, stored(method, security_code="321"))
    someone_else = BuyerFactory(merchant_account=merchant_account)

    theirs = pay(server, session, buyer_id=str(someone_else.pk))
    mine = pay(server, session, buyer_id=str(method.buyer_id))

    assert_error(theirs, 404, "/payment_method/id")
    assert mine.status_code == 201, mine.content
    assert (mine.json()["buyer"]["id"], mine.json()["cvv_response_code"]) == (str(method.buyer_id), "match")


def test_a_method_deleted_after_it_was_chosen_pays_nothing(anonymous_client, server, session, method):
    put_fields(anonymous_client, session, stored(method, security_code="321"))

    payment_method_delete(method=method)

    assert not VaultedSecurityCode.objects.exists()  # the code went with the card
    assert_error(pay(server, session), 404, "/payment_method/id")
    assert not Transaction.objects.exists()


def test_a_method_of_no_buyer_pays_for_no_buyer_and_never_for_a_named_one(
    anonymous_client, server, session, merchant_account
):
    unowned = PaymentMethodFactory(merchant_account=merchant_account, buyer=None)
    put_fields(anonymous_client, session, stored(unowned, security_code="321"))

    named = pay(server, session, buyer_id=str(BuyerFactory(merchant_account=merchant_account).pk))
    unnamed = pay(server, session)

    assert_error(named, 404, "/payment_method/id")
    assert unnamed.status_code == 201, unnamed.content
    assert (unnamed.json()["buyer"], unnamed.json()["payment_method"]["id"]) == (None, str(unowned.pk))


def test_storing_a_sessions_stored_method_again_is_refused(anonymous_client, api_client, session, method):
    put_fields(anonymous_client, session, stored(method))
    writer = api_client(scopes=["payment-methods.write"])
    other_buyer = BuyerFactory(merchant_account=method.merchant_account)

    response = writer.post(
        "/payment-methods",
        {"method": "checkout-session", "id": str(session.pk), "buyer_id": str(other_buyer.pk)},
        format="json",
    )

    assert_error(response, 400, "/id")  # never a copy of one buyer's card into another's wallet
    assert PaymentMethod.objects.count() == 1


def test_store_true_with_it_keeps_nothing_new(anonymous_client, server, session, method):
    put_fields(anonymous_client, session, stored(method, security_code="321"))

    response = pay(server, session, buyer_id=str(method.buyer_id), store=True)

    assert response.json()["payment_method"]["id"] == str(method.pk)
    assert PaymentMethod.objects.count() == 1


# --- embed tokens ----------------------------------------------------------------------------------------------


def _drop_in(api_client, session, **buyer):
    return api_client(
        scopes=["embed"], embed={"amount": 1299, "currency": "USD", **buyer}, checkout_session_id=str(session.pk)
    )


def test_an_embed_token_pays_with_its_pinned_buyers_method_chosen_in_its_session(
    api_client, anonymous_client, session, method
):
    put_fields(anonymous_client, session, stored(method, security_code="321"))

    response = pay(_drop_in(api_client, session, buyer_id=str(method.buyer_id)), session, buyer_id=str(method.buyer_id))

    assert response.status_code == 201, response.content
    assert response.json()["cvv_response_code"] == "match"


@pytest.mark.parametrize("owner", ["another buyer", "no buyer"])
@pytest.mark.parametrize("pins", ["a buyer", "no buyer"])
def test_an_embed_token_never_pays_with_a_method_that_is_not_its_buyers(
    api_client, anonymous_client, session, merchant_account, owner, pins
):
    """A buyer's browser may put any id on its session; the token paying with it still touches only its own buyer's
    (another buyer's method, or one of no buyer, answers as a missing one, and the typed code stays unused)."""
    mine = BuyerFactory(merchant_account=merchant_account)
    method = PaymentMethodFactory(merchant_account=merchant_account, **({"buyer": None} if owner == "no buyer" else {}))
    put_fields(anonymous_client, session, stored(method, security_code="321"))
    buyer = {"buyer_id": str(mine.pk)} if pins == "a buyer" else {}

    response = pay(_drop_in(api_client, session, **buyer), session, **buyer)

    assert_error(response, 404, "/payment_method/id")
    assert not Transaction.objects.exists()
    assert VaultedSecurityCode.objects.count() == 1
