"""`/digital-wallets`: upstream's operations and shapes, the key pairs made at registration (never a private key in
an answer), refusals by name with nothing written, the scopes and the account boundary."""

from __future__ import annotations

import base64
import uuid

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from digitalwallets.models import DigitalWallet, WalletKey
from digitalwallets.tests.factories import MERCHANT_ID, TestAuthority, register

pytestmark = pytest.mark.django_db

APPLE = {"provider": "apple", "merchant_name": "Acme Shop", "accept_terms_and_conditions": True}
SESSION_PATHS = [
    "/digital-wallets/click-to-pay/session",
    "/digital-wallets/paze/session",
    "/digital-wallets/paze/session/create",
    "/digital-wallets/paze/session/review",
    "/digital-wallets/paze/session/complete",
]


@pytest.fixture
def client(api_client):
    return api_client(scopes=["digital-wallets.read", "digital-wallets.write"])


def _keys(client, wallet_id) -> dict[str, dict]:
    response = client.get(f"/digital-wallets/{wallet_id}/keys")
    assert response.status_code == 200, response.content
    return {item["purpose"]: item for item in response.json()["items"]}


def _no_private_key(response) -> None:
    text = response.content.decode()
    assert "PRIVATE KEY" not in text
    assert all(key.sealed_private_key not in text for key in WalletKey.objects.all())


def test_registering_apple_pay_makes_its_two_key_pairs_and_their_signing_requests(client, merchant_account):
    response = client.post(
        "/digital-wallets",
        {
            **APPLE,
            "merchant_display_name": "Acme",
            "merchant_url": "https://shop.example.com",
            "merchant_country_code": "US",
            "merchant_category_code": "5411",
            "address": {"line1": "1 Main St", "city": "San Jose", "state_code": "US-CA", "postal_code": "95113"},
            "domain_names": ["Shop.Example.com", "shop.example.com", "pay.example.com"],
        },
        format="json",
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["type"], body["provider"], body["merchant_account_id"]) == ("digital-wallet", "apple", "default")
    assert body["domain_names"] == ["shop.example.com", "pay.example.com"]
    assert body["address"]["state_code"] == "US-CA"
    assert (body["active_certificate_count"], body["pending_certificate_count"]) == (0, 2)
    _no_private_key(response)
    keys = _keys(client, body["id"])
    processing = x509.load_pem_x509_csr(keys["apple-payment-processing"]["certificate_signing_request"].encode())
    identity = x509.load_pem_x509_csr(keys["apple-merchant-identity"]["certificate_signing_request"].encode())
    assert processing.is_signature_valid
    assert identity.is_signature_valid
    assert isinstance(processing.public_key(), ec.EllipticCurvePublicKey)
    assert processing.public_key().curve.name == "secp256r1"
    assert isinstance(identity.public_key(), rsa.RSAPublicKey)
    assert identity.public_key().key_size == 2048
    # The private halves are sealed at rest: nothing in a column reads as a key.
    for key in WalletKey.objects.all():
        assert key.sealed_private_key.startswith("v1.")
        assert "PRIVATE" not in key.sealed_private_key


def test_registering_google_pay_shows_the_public_key_googles_console_takes(client, merchant_account):
    response = client.post(
        "/digital-wallets",
        {**APPLE, "provider": "google", "extra_configuration": {"merchant_id": "BCR2DN4T00000000"}},
        format="json",
    )

    assert response.status_code == 201, response.content
    assert response.json()["pending_certificate_count"] == 0
    (key,) = _keys(client, response.json()["id"]).values()
    assert key["certificate_signing_request"] is None
    public = serialization.load_der_public_key(base64.b64decode(key["public_key"]))
    assert isinstance(public, ec.EllipticCurvePublicKey)
    assert public.curve.name == "secp256r1"
    assert DigitalWallet.objects.get().merchant_identifier == "BCR2DN4T00000000"


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [
        ({**APPLE, "provider": "click-to-pay"}, "/provider"),
        ({**APPLE, "provider": "paze"}, "/provider"),
        ({**APPLE, "provider": "samsung"}, "/provider"),
        ({**APPLE, "accept_terms_and_conditions": False}, "/accept_terms_and_conditions"),
        ({**APPLE, "accept_terms_and_conditions": "yes"}, "/accept_terms_and_conditions"),
        ({k: v for k, v in APPLE.items() if k != "merchant_name"}, "/merchant_name"),
        ({**APPLE, "merchant_name": ""}, "/merchant_name"),
        ({**APPLE, "merchant_country_code": "us"}, "/merchant_country_code"),
        ({**APPLE, "merchant_category_code": "54a1"}, "/merchant_category_code"),
        (
            {**APPLE, "address": {"line1": "1", "city": "X", "state_code": "CA", "postal_code": "1"}},
            "/address/state_code",
        ),
        ({**APPLE, "domain_names": ["https://shop.example.com"]}, "/domain_names/0"),
        ({**APPLE, "domain_names": ["shop.example.com:443"]}, "/domain_names/0"),
        ({**APPLE, "domain_names": ["localhost"]}, "/domain_names/0"),
        ({**APPLE, "extra_configuration": {"merchant_id": "x"}}, "/extra_configuration"),
        ({**APPLE, "provider": "google", "extra_configuration": {"gateway": "x"}}, "/extra_configuration/gateway"),
        (
            {**APPLE, "provider": "google", "extra_configuration": {"merchant_id": 5}},
            "/extra_configuration/merchant_id",
        ),
        ({**APPLE, "unknown": 1}, "/unknown"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_bad_registrations_are_refused_by_name_and_write_nothing(client, merchant_account, payload, pointer):
    response = client.post("/digital-wallets", payload, format="json")

    assert response.status_code == 400, response.content
    body = response.json()
    assert body["type"] == "error"
    assert pointer in [detail["pointer"] for detail in body["details"]]
    assert not DigitalWallet.objects.exists()
    assert not WalletKey.objects.exists()


def test_click_to_pay_is_refused_by_its_name(client, merchant_account):
    response = client.post("/digital-wallets", {**APPLE, "provider": "click-to-pay"}, format="json")

    assert "Click to Pay is not supported" in response.json()["details"][0]["message"]


def test_a_second_wallet_of_one_provider_is_a_duplicate(client, merchant_account):
    register(merchant_account)

    response = client.post("/digital-wallets", APPLE, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "duplicate_record"
    assert DigitalWallet.objects.count() == 1
    assert WalletKey.objects.count() == 2


def test_list_get_update_and_delete(client, merchant_account, other_merchant_account, django_assert_num_queries):
    apple = register(merchant_account)
    google = register(merchant_account, provider="google")
    register(other_merchant_account)

    with django_assert_num_queries(5):  # the key and its use, the account, the wallets, their keys: whatever the count
        listed = client.get("/digital-wallets")
    assert [item["id"] for item in listed.json()["items"]] == [str(google.pk), str(apple.pk)]
    assert client.get(f"/digital-wallets/{apple.pk}").json()["merchant_name"] == "Acme Shop"

    updated = client.put(
        f"/digital-wallets/{apple.pk}",
        {"merchant_display_name": "ACME", "merchant_name": None, "domain_names": ["a.example.com"]},
        format="json",
    )
    assert updated.status_code == 200, updated.content
    assert (updated.json()["merchant_display_name"], updated.json()["merchant_name"]) == ("ACME", "Acme Shop")
    assert updated.json()["domain_names"] == ["a.example.com"]

    assert client.delete(f"/digital-wallets/{apple.pk}").status_code == 204
    assert not WalletKey.objects.filter(wallet_id=apple.pk).exists()
    assert client.get(f"/digital-wallets/{apple.pk}").status_code == 404


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_another_accounts_wallet_is_not_found(client, merchant_account, other_merchant_account, method):
    wallet = register(other_merchant_account)

    response = getattr(client, method)(f"/digital-wallets/{wallet.pk}", {}, format="json")

    assert response.status_code == 404
    assert DigitalWallet.objects.filter(pk=wallet.pk).exists()


@pytest.mark.parametrize("wallet_id", ["not-a-uuid", "6691e6c8-2ddc-4ba2-8d14-4d34e8516ef0"])
def test_a_missing_wallet_is_not_found(client, merchant_account, wallet_id):
    assert client.get(f"/digital-wallets/{wallet_id}").status_code == 404


def test_an_update_is_held_to_the_same_rules(client, merchant_account):
    wallet = register(merchant_account)

    response = client.put(f"/digital-wallets/{wallet.pk}", {"extra_configuration": {"a": 1}}, format="json")

    assert response.status_code == 400
    assert response.json()["details"][0]["pointer"] == "/extra_configuration"


def test_domains_are_added_once_and_removed(client, merchant_account):
    wallet = register(merchant_account)
    url = f"/digital-wallets/{wallet.pk}/domains"

    assert client.post(url, {"domain_name": "Pay.Example.com"}, format="json").status_code == 200
    assert client.post(url, {"domain_name": "pay.example.com"}, format="json").status_code == 200
    wallet.refresh_from_db()
    assert wallet.domain_names == ["shop.example.com", "pay.example.com"]

    assert client.delete(url, {"domain_name": "shop.example.com"}, format="json").status_code == 204
    missing = client.delete(url, {"domain_name": "shop.example.com"}, format="json")
    assert missing.status_code == 404
    assert missing.json()["details"][0]["pointer"] == "/domain_name"
    wallet.refresh_from_db()
    assert wallet.domain_names == ["pay.example.com"]


@pytest.mark.parametrize("domain", ["http://x.example.com", "x.example.com/path", "", "a..example.com", 5])
def test_a_domain_that_is_no_domain_is_refused(client, merchant_account, domain):
    wallet = register(merchant_account)

    response = client.post(f"/digital-wallets/{wallet.pk}/domains", {"domain_name": domain}, format="json")

    assert response.status_code == 400
    assert response.json()["details"][0]["pointer"] == "/domain_name"
    wallet.refresh_from_db()
    assert wallet.domain_names == ["shop.example.com"]


def test_certificates_apple_signs_are_taken_back_and_counted(client, merchant_account):
    wallet = register(merchant_account)
    authority = TestAuthority()
    keys = {key.purpose: key for key in wallet.keys.all()}
    url = f"/digital-wallets/{wallet.pk}/certificates"

    processing = client.post(url, {"certificate": authority.sign_csr(keys["apple-payment-processing"])}, format="json")
    assert processing.status_code == 200, processing.content
    assert processing.json()["purpose"] == "apple-payment-processing"
    assert processing.json()["certificate_expires_at"] is not None
    identity_der = base64.b64decode(authority.sign_csr(keys["apple-merchant-identity"]))
    identity_pem = x509.load_der_x509_certificate(identity_der).public_bytes(serialization.Encoding.PEM).decode()
    assert client.post(url, {"certificate": identity_pem}, format="json").status_code == 200

    body = client.get(f"/digital-wallets/{wallet.pk}").json()
    assert (body["active_certificate_count"], body["pending_certificate_count"]) == (2, 0)
    wallet.refresh_from_db()
    assert wallet.merchant_identifier == MERCHANT_ID


def test_an_expired_certificate_is_counted_as_expired(client, merchant_account):
    wallet = register(merchant_account)
    key = wallet.keys.get(purpose="apple-payment-processing")

    client.post(
        f"/digital-wallets/{wallet.pk}/certificates",
        {"certificate": TestAuthority().sign_csr(key, days=-1)},
        format="json",
    )

    body = client.get(f"/digital-wallets/{wallet.pk}").json()
    assert (body["active_certificate_count"], body["expired_certificate_count"]) == (0, 1)


def test_a_certificate_of_another_key_is_refused_by_name(client, merchant_account, other_merchant_account):
    wallet = register(merchant_account)
    stranger = register(other_merchant_account).keys.get(purpose="apple-payment-processing")

    response = client.post(
        f"/digital-wallets/{wallet.pk}/certificates",
        {"certificate": TestAuthority().sign_csr(stranger)},
        format="json",
    )

    assert response.status_code == 400
    assert "not one of this wallet's key pairs" in response.json()["details"][0]["message"]
    assert not WalletKey.objects.filter(wallet=wallet, certificate__isnull=False).exists()


@pytest.mark.parametrize(
    ("certificate", "why"),
    [("bm90IGEgY2VydGlmaWNhdGU=", "not an X.509 certificate"), ("-----BEGIN CERTIFICATE-----\nxx", "not an X.509")],
    ids=["base64-of-text", "broken-pem"],
)
def test_what_is_no_certificate_is_refused(client, merchant_account, certificate, why):
    wallet = register(merchant_account)

    response = client.post(f"/digital-wallets/{wallet.pk}/certificates", {"certificate": certificate}, format="json")

    assert response.status_code == 400
    assert why in response.json()["details"][0]["message"]


def test_an_identity_certificate_naming_no_merchant_is_refused(client, merchant_account):
    wallet = register(merchant_account)
    key = wallet.keys.get(purpose="apple-merchant-identity")

    response = client.post(
        f"/digital-wallets/{wallet.pk}/certificates",
        {"certificate": TestAuthority().sign_csr(key, merchant_id=None)},
        format="json",
    )

    assert response.status_code == 400
    assert "merchant identifier" in response.json()["details"][0]["message"]
    key.refresh_from_db()
    assert key.certificate is None


def test_a_google_pay_wallet_takes_no_certificate(client, merchant_account):
    wallet = register(merchant_account, provider="google")
    key = wallet.keys.get()

    response = client.post(
        f"/digital-wallets/{wallet.pk}/certificates",
        {"certificate": base64.b64encode(b"x").decode()},
        format="json",
    )

    assert response.status_code == 400
    key.refresh_from_db()
    assert key.certificate is None


@pytest.mark.parametrize("path", SESSION_PATHS)
def test_click_to_pay_and_paze_sessions_are_refused_by_name(client, merchant_account, path):
    response = client.post(path, {"checkout_session_id": str(uuid.uuid4())}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "bad_request"
    assert ("Click to Pay" if "click" in path else "Paze") in response.json()["message"]


def test_a_google_pay_session_is_for_a_website_of_the_wallet(client, merchant_account):
    register(merchant_account, provider="google")

    response = client.post("/digital-wallets/google/session", {"origin_domain": "Shop.Example.com"}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["gateway_merchant_id"] == "default"
    from django.core import signing

    from digitalwallets.sessions import GOOGLE_SESSION_SALT

    claims = signing.loads(response.json()["token"], salt=GOOGLE_SESSION_SALT)
    assert claims["domain"] == "shop.example.com"
    other = client.post("/digital-wallets/google/session", {"origin_domain": "evil.example.com"}, format="json")
    assert other.status_code == 400
    assert other.json()["details"][0]["pointer"] == "/origin_domain"


def test_a_google_pay_session_without_a_wallet_is_not_found(client, merchant_account):
    response = client.post("/digital-wallets/google/session", {"origin_domain": "shop.example.com"}, format="json")

    assert response.status_code == 404
    assert "no Google Pay wallet" in response.json()["message"]


@pytest.mark.parametrize(
    ("scopes", "method", "path", "allowed"),
    [
        (["digital-wallets.read"], "get", "/digital-wallets", True),
        (["digital-wallets.write"], "get", "/digital-wallets", False),
        (["digital-wallets.read"], "post", "/digital-wallets", False),
        (["embed"], "post", "/digital-wallets", False),
        (["embed"], "get", "/digital-wallets", False),
        (["embed"], "post", "/digital-wallets/google/session", True),
        (["digital-wallets.read"], "post", "/digital-wallets/google/session", False),
        (["digital-wallets.write"], "post", "/digital-wallets/google/session", True),
        (["transactions.write"], "post", "/digital-wallets/paze/session", False),
        (["*.read"], "get", "/digital-wallets", True),
    ],
    ids=lambda value: "-".join(value) if isinstance(value, list) else None,
)
def test_the_scopes(api_client, merchant_account, scopes, method, path, allowed):
    register(merchant_account, provider="google")
    client = api_client(scopes=scopes, embed={"amount": 100, "currency": "USD"} if "embed" in scopes else None)
    body = {"origin_domain": "shop.example.com"} if "session" in path else APPLE

    response = getattr(client, method)(path, body, format="json")

    assert (response.status_code != 403) is allowed, response.content
    assert DigitalWallet.objects.count() == 1


def test_an_embed_token_is_limited_on_the_session_operations_and_a_server_token_is_not(
    api_client, merchant_account, settings
):
    import uuid as _uuid

    settings.RATELIMIT_CACHE_PREFIX = f"rl-test-{_uuid.uuid4().hex}:"
    settings.RATELIMIT_EMBED = "2/d"
    register(merchant_account, provider="google")
    body = {"origin_domain": "shop.example.com"}
    embed = api_client(scopes=["embed"], embed={"amount": 100, "currency": "USD"})
    server = api_client(scopes=["digital-wallets.write"])

    answers = [embed.post("/digital-wallets/google/session", body, format="json").status_code for _ in range(3)]

    assert answers == [200, 200, 429]
    assert [server.post("/digital-wallets/google/session", body, format="json").status_code for _ in range(3)] == [
        200
    ] * 3
