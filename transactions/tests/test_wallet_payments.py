"""Payments with Apple Pay and Google Pay tokens (`POST /transactions`, `payment_method.method` `applepay` or
`googlepay`): decrypted with the account's wallet keys, the device number sent as a network token with its
cryptogram, each hostile token refused naming why with nothing stored, a token paying once."""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from django.test import Client as DjangoClient
from django.utils import timezone

from buyers.tests.factories import BuyerFactory
from checkout.tests.factories import CheckoutSessionFactory
from digitalwallets.models import DigitalWallet, WalletKeyPurpose
from digitalwallets.selectors import wallet_keys_for
from digitalwallets.tests.factories import MERCHANT_ID
from digitalwallets.tests.tokens import wallets_registered
from payments.connectors import AuthorizationRequest
from payments.tests.assertions import assert_error
from payments.vault.models import VaultedCard
from payments.wallettokens.testing import apple_pay_payload, apple_pay_test_pki, mint_apple_pay_token
from paymentservices.models import PaymentService
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import Transaction, TransactionEvent
from transactions.tests.test_challenge_page import form_token
from transactions.tests.test_three_d_secure import CHALLENGE_Y, REDIRECT

pytestmark = pytest.mark.django_db

SDK_DEFAULTS = {"store": False, "merchant_initiated": False, "is_subsequent_payment": False}
CRYPTOGRAM = "AgAAAAAABk4DWZ4C28yUQAAAAAA="


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


@pytest.fixture
def wallets(merchant_account, settings, tmp_path):
    return wallets_registered(merchant_account, settings=settings, directory=tmp_path)


def authorizations(connector) -> list[AuthorizationRequest]:
    """What the account's sandbox service was asked (the scripted sandbox answers as the sandbox does)."""
    return [details["request"] for name, details in connector.calls if name == "authorize"]


def pay(client, method: str, token, redirect_url: str | None = None, **fields):
    wallet = {"method": method, "token": token, **({"redirect_url": redirect_url} if redirect_url else {})}
    payload = {
        "amount": 1299,
        "currency": "USD",
        "payment_method": wallet,
        **SDK_DEFAULTS,
        **fields,
    }
    return client.post("/transactions", payload, format="json")


def nothing_stored() -> None:
    assert not Transaction.objects.exists()
    assert not VaultedCard.objects.exists()


@pytest.mark.parametrize("wallet", ["applepay", "googlepay"])
def test_a_wallet_token_pays_as_a_network_token_with_its_cryptogram(client, wallets, connector, wallet):
    token = wallets.apple() if wallet == "applepay" else wallets.google()

    response = pay(client, wallet, token)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "authorization_succeeded"
    assert (body["payment_method"]["method"], body["payment_method"]["mode"]) == (wallet, wallet)
    assert body["instrument_type"] == wallet
    (request,) = authorizations(connector)
    assert request.network_token is not None
    assert (request.network_token.wallet, request.network_token.cryptogram) == (wallet, CRYPTOGRAM)
    assert request.network_token.eci == ("07" if wallet == "applepay" else "05")
    # The device number is card data, sealed in the vault as a typed card is; the cryptogram is nowhere stored.
    txn = Transaction.objects.get()
    assert txn.method == wallet
    assert txn.vaulted_card is not None
    assert txn.checkout_session_id is None  # a server's payment is no checkout's
    assert CRYPTOGRAM not in str(Transaction.objects.values().get())
    assert client.get(f"/transactions/{txn.pk}").json()["payment_method"]["method"] == wallet


def test_apple_pay_js_payment_data_alone_is_taken_too(client, wallets):
    response = pay(client, "applepay", wallets.apple()["paymentData"])

    assert response.status_code == 201, response.content


def test_google_pay_token_parsed_as_an_object_is_taken_too(client, wallets):
    response = pay(client, "googlepay", json.loads(wallets.google()))

    assert response.status_code == 201, response.content


def test_google_pay_pan_only_is_a_card_that_goes_through_three_d_secure(client, wallets, connector, merchant_account):
    PaymentService.objects.filter(merchant_account=merchant_account).update(three_d_secure_enabled=True)

    response = pay(client, "googlepay", wallets.google(auth_method="PAN_ONLY", pan="4111111111111111"))

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["payment_method"]["method"], body["payment_method"]["mode"]) == ("googlepay", "googlepay")
    assert body["three_d_secure"] is not None
    (request,) = authorizations(connector)
    assert request.network_token is None
    assert request.three_d_secure is not None


def test_a_device_token_is_not_authenticated_again(client, wallets, connector, merchant_account):
    PaymentService.objects.filter(merchant_account=merchant_account).update(three_d_secure_enabled=True)

    response = pay(client, "applepay", wallets.apple())

    assert response.status_code == 201, response.content
    assert response.json()["three_d_secure"] is None
    (request,) = authorizations(connector)
    assert request.three_d_secure is None


def _expired_apple(wallets):
    return wallets.apple(signing_time=timezone.now() - timedelta(hours=1))


def _expired_google(wallets):
    return wallets.google(expires_at_ms=1)


def _tampered_apple(wallets):
    token = wallets.apple()
    data = token["paymentData"]["data"]
    token["paymentData"]["data"] = ("B" if data[0] == "A" else "A") + data[1:]
    return token


def _other_root(wallets):
    wallets.pki = apple_pay_test_pki(valid_from=timezone.now() - timedelta(days=1))
    return wallets.apple()


def _other_merchant(wallets):
    return _minted(wallets, processing_key=ec.generate_private_key(ec.SECP256R1()).public_key())


def _sealed_for_another_merchant_id(wallets):
    keys = wallet_keys_for(merchant_account=wallets.merchant_account, provider="apple")
    own_key = keys.private_keys[WalletKeyPurpose.APPLE_PAYMENT_PROCESSING].public_key()
    return _minted(wallets, processing_key=own_key, merchant_identifier="merchant.com.example.other")


def _minted(wallets, *, processing_key, merchant_identifier=MERCHANT_ID):
    return mint_apple_pay_token(
        pki=wallets.pki,
        merchant_identifier=merchant_identifier,
        processing_key=processing_key,
        signing_time=timezone.now(),
        payload=apple_pay_payload(),
    )


@pytest.mark.parametrize(
    ("method", "make", "reason"),
    [
        ("applepay", _expired_apple, "expired"),
        ("googlepay", _expired_google, "expired"),
        ("applepay", _tampered_apple, "bad_signature"),
        ("applepay", _other_root, "untrusted_root"),
        ("applepay", _other_merchant, "other_merchant"),
        ("applepay", _sealed_for_another_merchant_id, "tampered"),
        ("googlepay", lambda wallets: "{}", "malformed"),
    ],
    ids=[
        "apple-expired",
        "google-expired",
        "apple-tampered",
        "apple-wrong-root",
        "apple-other-merchant",
        "apple-sealed-for-another-id",
        "malformed",
    ],
)
def test_a_hostile_token_is_refused_naming_why_and_nothing_is_stored(client, wallets, method, make, reason):
    response = pay(client, method, make(wallets))

    body = assert_error(response, 400, "/payment_method/token")
    assert body["details"][0]["type"] == f"wallet_token_{reason}"
    assert f"({reason})" in body["message"]
    nothing_stored()


def test_a_token_pays_once(client, wallets):
    token = wallets.apple()
    assert pay(client, "applepay", token).status_code == 201

    again = pay(client, "applepay", token)

    body = assert_error(again, 409, "/payment_method/token")
    assert body["details"][0]["type"] == "wallet_token_replayed"
    assert Transaction.objects.count() == 1


@pytest.mark.parametrize(
    ("fields", "words"),
    [({"amount": 1300}, "amount of 1299"), ({"currency": "EUR"}, "in USD")],
    ids=["amount", "currency"],
)
def test_an_apple_pay_token_pays_only_what_its_sheet_showed(client, wallets, fields, words):
    response = pay(client, "applepay", wallets.apple(), **fields)

    body = assert_error(response, 400, "/payment_method/token")
    assert words in body["message"]
    nothing_stored()


@pytest.mark.parametrize("method", ["applepay", "googlepay"])
def test_an_account_without_the_wallet_is_refused_by_name(client, wallets, merchant_account, method):
    token = wallets.apple() if method == "applepay" else wallets.google()
    DigitalWallet.objects.filter(merchant_account=merchant_account).delete()

    response = pay(client, method, token)

    body = assert_error(response, 400, "/payment_method/method")
    assert "No Apple Pay wallet" in body["message"] or "No Google Pay wallet" in body["message"]
    nothing_stored()


def test_an_apple_pay_wallet_without_its_merchant_id_is_refused_by_name(client, wallets, merchant_account):
    token = wallets.apple()
    DigitalWallet.objects.filter(merchant_account=merchant_account, provider="apple").update(merchant_identifier=None)

    body = assert_error(pay(client, "applepay", token), 400, "/payment_method/method")
    assert "merchant identity certificate" in body["message"]


@pytest.mark.parametrize(
    ("payment_method", "pointer"),
    [
        ({"method": "applepay", "token": "text"}, "/payment_method/token"),
        ({"method": "googlepay", "token": 12}, "/payment_method/token"),
        ({"method": "googlepay"}, "/payment_method/token"),
        ({"method": "googlepay", "token": "x", "card_suffix": "1234"}, "/payment_method/card_suffix"),
    ],
    ids=["apple-text", "google-number", "missing", "card-suffix"],
)
def test_a_wallet_payment_method_out_of_shape_is_refused(client, wallets, payment_method, pointer):
    response = client.post(
        "/transactions", {"amount": 1299, "currency": "USD", "payment_method": payment_method}, format="json"
    )

    assert_error(response, 400, pointer)
    nothing_stored()


def test_a_wallet_token_is_not_stored_as_a_payment_method(client, wallets, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)

    response = pay(client, "applepay", wallets.apple(), store=True, buyer_id=str(buyer.pk))

    assert_error(response, 400, "/store")
    nothing_stored()


def test_routing_skips_a_processor_that_cannot_take_a_network_token(client, wallets, merchant_account, connector):
    stripe = PaymentServiceFactory(merchant_account=merchant_account, display_name="Stripe", position=0)
    assert stripe.definition_id == "stripe-card"

    response = pay(client, "applepay", wallets.apple())

    assert response.status_code == 201, response.content
    assert response.json()["payment_service"]["payment_service_definition_id"] == "mock-card"
    # Stripe was not asked and failed over from: it was never on the route.
    assert not TransactionEvent.objects.filter(name__startswith="authorization_attempt").exists()
    assert len(authorizations(connector)) == 1


def test_a_processor_that_cannot_take_a_network_token_is_refused_when_named(client, wallets, merchant_account):
    stripe = PaymentServiceFactory(merchant_account=merchant_account, display_name="Stripe")

    response = pay(client, "googlepay", wallets.google(), payment_service_id=str(stripe.pk))

    body = assert_error(response, 400, "/payment_service_id")
    assert "network token" in body["message"]
    nothing_stored()


@pytest.mark.parametrize("method", ["applepay", "googlepay"])
def test_a_checkouts_embed_token_pays_with_a_wallet_token(api_client, wallets, merchant_account, method):
    # Embed's wallet buttons: the token pins the amount, the currency and the checkout session whose card fields the
    # buyer chose not to use.
    session = CheckoutSessionFactory(merchant_account=merchant_account)
    embed = api_client(scopes=["embed"], embed={"amount": 1299, "currency": "USD"}, checkout_session_id=str(session.pk))
    token = wallets.apple() if method == "applepay" else wallets.google()

    response = pay(embed, method, token)

    assert response.status_code == 201, response.content
    assert response.json()["payment_method"]["method"] == method
    assert_error(pay(embed, method, token, amount=1300), 403)  # the pinned amount still holds


def test_a_checkouts_wallet_payment_challenged_is_read_back_by_that_checkouts_token_alone(
    api_client, wallets, merchant_account, connector
):
    """Embed reads a Google Pay `PAN_ONLY` payment back once the buyer is out of its 3-D Secure challenge: the
    transaction keeps the token's checkout session (docs/frontend.md, "Wallets"); another checkout's token finds
    nothing."""
    PaymentService.objects.filter(merchant_account=merchant_account).update(three_d_secure_enabled=True)
    session = CheckoutSessionFactory(merchant_account=merchant_account)
    pins = {"amount": 1299, "currency": "USD"}
    embed = api_client(scopes=["embed"], embed=pins, checkout_session_id=str(session.pk))
    token = wallets.google(auth_method="PAN_ONLY", pan=CHALLENGE_Y)

    created = pay(embed, "googlepay", token, redirect_url=REDIRECT)

    assert created.status_code == 201, created.content
    assert created.json()["status"] == "buyer_approval_pending"
    txn = Transaction.objects.get(pk=created.json()["id"])
    assert txn.checkout_session_id == session.pk
    path = urlsplit(created.json()["payment_method"]["approval_url"]).path
    browser = DjangoClient()
    browser.post(path, {"form_token": form_token(browser.get(path)), "action": "complete"})
    read = embed.get(f"/transactions/{txn.pk}")
    assert read.status_code == 200, read.content
    assert (read.json()["status"], read.json()["payment_method"]["method"]) == ("authorization_succeeded", "googlepay")
    other = api_client(scopes=["embed"], embed=pins, checkout_session_id=str(CheckoutSessionFactory().pk))
    assert_error(other.get(f"/transactions/{txn.pk}"), 404)
