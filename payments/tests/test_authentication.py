"""Bearer JWT authentication: every way a token can be wrong is a 401 in the envelope, SDK tokens pass."""

import base64
import hashlib
import hmac
import json
import uuid
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from gr4vy import auth as sdk_auth
from jwt.algorithms import ECAlgorithm
from rest_framework.test import APIClient

from payments.accounts.keys import generate_private_key, load_private_pem, mint_token
from payments.accounts.services import api_key_revoke
from payments.rest import authentication

pytestmark = pytest.mark.django_db

URL = "/buyers"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _segment(value: dict) -> str:
    return _b64(json.dumps(value).encode())


def _claims(**overrides) -> dict:
    now = datetime.now(tz=UTC)
    claims = {
        "scopes": ["*.read", "*.write"],
        "iat": int(now.timestamp()),
        "nbf": int(now.timestamp()),
        "exp": int((now + timedelta(hours=1)).timestamp()),
        "jti": str(uuid.uuid4()),
    }
    claims.update(overrides)
    return {name: value for name, value in claims.items() if value is not None}


def _signed(private_pem: str, kid, claims: dict) -> str:
    """An ES512 JWS with exactly this header and these claims (no library checks on either)."""
    signing_input = f"{_segment({'alg': 'ES512', 'kid': kid, 'typ': 'JWT'})}.{_segment(claims)}"
    signature = ECAlgorithm(ECAlgorithm.SHA512).sign(signing_input.encode(), load_private_pem(private_pem))
    return f"{signing_input}.{_b64(signature)}"


def _client(authorization: str | None) -> APIClient:
    client = APIClient()
    if authorization is not None:
        client.credentials(HTTP_AUTHORIZATION=authorization)
    return client


def _assert_unauthorized(response) -> None:
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    body = response.json()
    assert body["type"] == "error"
    assert body["code"] == "unauthorized"
    assert body["status"] == 401
    assert body["message"]


def _other_key_same_kid(kid: str) -> str:
    other_pem = generate_private_key()[1]
    return _signed(other_pem, kid, _claims())


def _alg_none(kid: str) -> str:
    return f"{_segment({'alg': 'none', 'kid': kid, 'typ': 'JWT'})}.{_segment(_claims())}."


def _hs512_with_public_pem(kid: str, public_pem: str) -> str:
    """The classic confusion attack: an HMAC token keyed with the (public) verification key."""
    signing_input = f"{_segment({'alg': 'HS512', 'kid': kid, 'typ': 'JWT'})}.{_segment(_claims())}"
    signature = hmac.new(public_pem.encode(), signing_input.encode(), hashlib.sha512).digest()
    return f"{signing_input}.{_b64(signature)}"


# Each case builds the Authorization header from (private PEM, API key); None means no header at all.
REJECTED = {
    "no header": lambda pem, key: None,
    "wrong scheme": lambda pem, key: f"Token {mint_token(pem)}",
    "basic scheme": lambda pem, key: "Basic dXNlcjpwYXNz",
    "bearer without token": lambda pem, key: "Bearer",
    "three parts": lambda pem, key: f"Bearer {mint_token(pem)} extra",
    "garbage": lambda pem, key: "Bearer not-a-jwt",
    "garbage with dots": lambda pem, key: "Bearer a.b.c",
    "unknown kid": lambda pem, key: f"Bearer {mint_token(generate_private_key()[1])}",
    "kid not a string": lambda pem, key: f"Bearer {_signed(pem, 7, _claims())}",
    "no kid": lambda pem, key: f"Bearer {_signed(pem, None, _claims())}",
    "kid with NUL byte": lambda pem, key: f"Bearer {_signed(pem, key.kid + chr(0), _claims())}",
    "kid far too long": lambda pem, key: f"Bearer {_signed(pem, 'k' * 5000, _claims())}",
    "bad signature": lambda pem, key: f"Bearer {_other_key_same_kid(key.kid)}",
    "tampered claims": lambda pem, key: (
        "Bearer "
        + ".".join(
            (part if index != 1 else _segment(_claims(scopes=["*.write", "*.read", "embed"])))
            for index, part in enumerate(mint_token(pem).split("."))
        )
    ),
    "alg none": lambda pem, key: f"Bearer {_alg_none(key.kid)}",
    "HS512 keyed with the public PEM": lambda pem, key: f"Bearer {_hs512_with_public_pem(key.kid, key.public_key)}",
    "expired": lambda pem, key: (
        "Bearer " + mint_token(pem, now=datetime.now(tz=UTC) - timedelta(hours=2), expires_in=3600)
    ),
    "not yet valid beyond the leeway": lambda pem, key: (
        "Bearer " + mint_token(pem, now=datetime.now(tz=UTC) + timedelta(minutes=5))
    ),
    "missing scopes": lambda pem, key: f"Bearer {_signed(pem, key.kid, _claims(scopes=None))}",
    "scopes not a list": lambda pem, key: f"Bearer {_signed(pem, key.kid, _claims(scopes='*.read'))}",
    "missing exp": lambda pem, key: f"Bearer {_signed(pem, key.kid, _claims(exp=None))}",
}


@pytest.mark.parametrize("build", REJECTED.values(), ids=REJECTED.keys())
def test_rejected_tokens_are_401_with_the_envelope(build, private_key_pem, api_key):
    response = _client(build(private_key_pem, api_key)).get(URL)

    _assert_unauthorized(response)


def test_revoked_key_is_refused(private_key_pem, api_key, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        api_key_revoke(kid=api_key.kid)

    _assert_unauthorized(_client(f"Bearer {mint_token(private_key_pem)}").get(URL))


def test_revoked_key_is_refused_even_for_a_token_verified_before(
    private_key_pem, api_key, django_capture_on_commit_callbacks
):
    client = _client(f"Bearer {mint_token(private_key_pem)}")
    assert client.get(URL).status_code == 200  # the token and the key are now cached in this process

    with django_capture_on_commit_callbacks(execute=True):
        api_key_revoke(kid=api_key.kid)

    _assert_unauthorized(client.get(URL))


def test_token_from_the_official_sdk_is_accepted(private_key_pem, api_key):
    token = sdk_auth.get_token(private_key_pem, scopes=["buyers.read"])

    response = _client(f"Bearer {token}").get(URL)

    assert response.status_code == 200


def test_sdk_token_kid_is_the_stored_thumbprint(private_key_pem, api_key):
    token = sdk_auth.get_token(private_key_pem)

    assert jwt.get_unverified_header(token)["kid"] == api_key.kid


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "BeArEr"])
def test_scheme_is_case_insensitive(scheme, private_key_pem, api_key):
    response = _client(f"{scheme} {mint_token(private_key_pem)}").get(URL)

    assert response.status_code == 200


def test_token_within_the_leeway_is_accepted(private_key_pem, api_key):
    """Clocks drift: a token minted a few seconds in the server's future still works."""
    token = mint_token(private_key_pem, now=datetime.now(tz=UTC) + timedelta(seconds=5))

    assert _client(f"Bearer {token}").get(URL).status_code == 200


def test_repeated_jti_is_accepted(private_key_pem, api_key):
    """SDK retries resend the same token: a jti is an id, not a one-time nonce."""
    token = mint_token(private_key_pem)
    client = _client(f"Bearer {token}")

    first = client.get(URL)
    authentication.clear_caches()  # force the second request through full verification again
    second = client.get(URL)
    same_jti = _signed(
        private_key_pem, api_key.kid, _claims(jti=jwt.decode(token, options={"verify_signature": False})["jti"])
    )
    third = _client(f"Bearer {same_jti}").get(URL)

    assert [first.status_code, second.status_code, third.status_code] == [200, 200, 200]


def test_missing_scope_is_403_naming_it(api_client):
    response = api_client(scopes=["gift-cards.read"]).get(URL)

    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert "buyers.read" in response.json()["message"]


def _last_used(api_key):
    api_key.refresh_from_db()
    return api_key.last_used_at


def test_last_used_at_is_written_on_first_use(api_client, api_key):
    assert api_key.last_used_at is None

    api_client(scopes=["buyers.read"]).get(URL)

    assert _last_used(api_key) is not None


def test_last_used_at_is_not_rewritten_within_a_minute(api_client, api_key, django_assert_num_queries, settings):
    settings.API_KEY_CACHE_SECONDS = 3600
    client = api_client(scopes=["buyers.read"])
    client.get(URL)
    first = _last_used(api_key)

    with django_assert_num_queries(1):  # the page query only: no UPDATE of the key
        client.get(URL)
    authentication.clear_caches()  # another process, with no memory of the first write
    client.get(URL)

    assert _last_used(api_key) == first


def test_last_used_at_is_rewritten_after_a_minute(api_client, api_key):
    client = api_client(scopes=["buyers.read"])
    client.get(URL)
    stale = _last_used(api_key) - timedelta(seconds=61)
    type(api_key).objects.filter(pk=api_key.pk).update(last_used_at=stale)
    authentication.clear_caches()

    client.get(URL)

    assert _last_used(api_key) > stale


# An embed token lives in a browser: its lifetime is bounded (EMBED_TOKEN_MAX_LIFETIME_SECONDS, a day by default).
LONG_LIVED_EMBED = {
    "exp 10^12": lambda: _claims(scopes=["embed"], exp=10**12),
    "a day and an hour from iat": lambda: _claims(
        scopes=["embed"], exp=int((datetime.now(tz=UTC) + timedelta(hours=25)).timestamp())
    ),
    "a day and an hour, no iat": lambda: _claims(
        scopes=["embed"], iat=None, exp=int((datetime.now(tz=UTC) + timedelta(hours=25)).timestamp())
    ),
    "issued long ago, still valid": lambda: _claims(
        scopes=["embed"],
        iat=int((datetime.now(tz=UTC) - timedelta(days=30)).timestamp()),
        nbf=int((datetime.now(tz=UTC) - timedelta(days=30)).timestamp()),
        exp=int((datetime.now(tz=UTC) + timedelta(hours=1)).timestamp()),
    ),
    "with other scopes beside embed": lambda: _claims(scopes=["embed", "*.read"], exp=10**12),
}


@pytest.mark.parametrize("claims", LONG_LIVED_EMBED.values(), ids=LONG_LIVED_EMBED.keys())
def test_an_embed_token_living_longer_than_the_bound_is_refused(claims, private_key_pem, api_key):
    response = _client(f"Bearer {_signed(private_key_pem, api_key.kid, claims())}").get(URL)

    _assert_unauthorized(response)
    assert "embed token may live at most 86400 seconds" in response.json()["message"]


def test_the_bound_is_a_setting(private_key_pem, api_key, settings):
    settings.EMBED_TOKEN_MAX_LIFETIME_SECONDS = 600
    payment_options = {"amount": 100, "currency": "USD"}

    short = mint_token(private_key_pem, scopes=["embed"], embed=payment_options, expires_in=600)
    long = mint_token(private_key_pem, scopes=["embed"], embed=payment_options, expires_in=3600)

    assert _client(f"Bearer {short}").post("/payment-options", {}, format="json").status_code == 200
    _assert_unauthorized(_client(f"Bearer {long}").post("/payment-options", {}, format="json"))


def test_an_embed_token_of_a_day_is_accepted_and_server_tokens_keep_their_rules(private_key_pem, api_key):
    payment_options = {"amount": 100, "currency": "USD"}
    embed = mint_token(private_key_pem, scopes=["embed"], embed=payment_options, expires_in=86_400)
    server = _signed(private_key_pem, api_key.kid, _claims(exp=10**12))

    assert _client(f"Bearer {embed}").post("/payment-options", {}, format="json").status_code == 200
    assert _client(f"Bearer {server}").get(URL).status_code == 200
