"""The Secure Fields frame and the demo shop page, as plain HTTP (tests/browser drives them in Chromium)."""

import re
import uuid
from datetime import timedelta

import jwt
import pytest
from django.test import Client
from django.utils import timezone

from buyers.models import Buyer
from checkout.models import CheckoutSession
from checkout.services import checkout_session_create
from digitalwallets.tests.factories import register
from payments.accounts.keys import load_private_pem
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db

SHOP = "https://shop.example"
API_HOST = "api.example"
FRAME_URL = "/checkout/secure-fields/frame/"


@pytest.fixture
def client(settings):
    settings.ALLOWED_HOSTS = [API_HOST, "localhost", "127.0.0.1"]
    settings.SECURE_FIELDS_ORIGIN = ""
    return Client(HTTP_HOST=API_HOST)


@pytest.fixture
def session(merchant_account):
    # The API's own origin too, by mistake: it grants a merchant's page nothing (only this server's pages are there).
    merchant_account.allowed_origins = [SHOP, "http://localhost:8000", f"http://{API_HOST}"]
    merchant_account.save()
    return checkout_session_create(merchant_account=merchant_account)


def frame_params(session, **overrides) -> dict:
    return {"field": "number", "session_id": str(session.id), "parent_origin": SHOP, **overrides}


def csp_directives(response) -> dict[str, str]:
    return dict(part.split(" ", 1) for part in response["Content-Security-Policy"].split("; "))


# --- the Secure Fields frame ------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["number", "expiry", "security_code"])
def test_frame_renders_each_field_with_its_context(client, session, field):
    response = client.get(FRAME_URL, frame_params(session, field=field, parent_origin=SHOP + "/"))

    assert response.status_code == 200
    assert response.templates[0].name == "checkout/secure_field_frame.html"
    context = response.context
    assert context["field"] == field
    assert context["session_id"] == str(session.id)
    assert context["parent_origin"] == SHOP  # normalised: the frame compares it with event.origin
    assert context["api_origin"] == f"http://{API_HOST}"
    html = response.content.decode()
    assert f'data-field="{field}"' in html
    assert f'data-parent-origin="{SHOP}"' in html


def test_frame_headers_allow_only_the_merchants_origins_to_frame_it(client, session):
    response = client.get(FRAME_URL, frame_params(session))

    directives = csp_directives(response)
    nonce = response.context["csp_nonce"]
    assert directives["frame-ancestors"] == f"{SHOP} http://localhost:8000"
    assert directives["script-src"] == f"'self' 'nonce-{nonce}'"
    assert directives["style-src"] == f"'nonce-{nonce}'"
    assert directives["connect-src"] == "'self'"
    assert directives["default-src"] == "'none'"
    # Every inline block carries this response's nonce, so the policy lets exactly them run.
    html = response.content.decode()
    assert re.findall(r'nonce="([^"]+)"', html) == [nonce, nonce]
    assert "X-Frame-Options" not in response
    assert response["Cache-Control"] == "no-store"
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_every_frame_gets_a_fresh_nonce(client, session):
    nonces = {client.get(FRAME_URL, frame_params(session)).context["csp_nonce"] for _ in range(3)}

    assert len(nonces) == 3


def test_frame_answers_head(client, session):
    assert client.head(FRAME_URL, frame_params(session)).status_code == 200


@pytest.mark.parametrize(
    ("overrides", "status", "pointer"),
    [
        ({"field": "cvv"}, 400, "/field"),
        ({"field": ""}, 400, "/field"),
        ({"parent_origin": "shop.example"}, 400, "/parent_origin"),
        ({"parent_origin": "https://shop.example/checkout"}, 400, "/parent_origin"),
        ({"parent_origin": "https://shop.example; script-src *"}, 400, "/parent_origin"),
        ({"parent_origin": "https://evil.example"}, 403, "/parent_origin"),
        ({"parent_origin": "http://shop.example"}, 403, "/parent_origin"),
        ({"session_id": "not-a-uuid"}, 404, "/session_id"),
        ({"session_id": "00000000-0000-4000-8000-000000000000"}, 404, "/session_id"),
    ],
    ids=[
        "unknown-field",
        "empty-field",
        "parent-without-scheme",
        "parent-with-path",
        "parent-csp-injection",
        "parent-not-allowed",
        "parent-other-scheme",
        "malformed-session",
        "unknown-session",
    ],
)
def test_frame_refuses_bad_requests(client, session, overrides, status, pointer):
    response = client.get(FRAME_URL, frame_params(session, **overrides))

    assert_error(response, status, pointer, location="query")
    assert "Content-Security-Policy" not in response


def test_this_servers_own_pages_may_frame_it_and_nothing_else_of_its_origin(client, session):
    # A payment link's page is served here: the card goes to the server that serves the page either way.
    response = client.get(FRAME_URL, frame_params(session, parent_origin=f"http://{API_HOST}"))

    assert response.status_code == 200
    assert response.context["parent_origin"] == f"http://{API_HOST}"
    assert csp_directives(response)["frame-ancestors"] == "'self'"


def test_frame_refuses_a_missing_parameter(client, session):
    params = frame_params(session)
    del params["parent_origin"]

    assert_error(client.get(FRAME_URL, params), 400, "/parent_origin", location="query")


def test_frame_of_an_expired_session_is_not_found(client, session):
    CheckoutSession.objects.filter(pk=session.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    assert_error(client.get(FRAME_URL, frame_params(session)), 404, "/session_id", location="query")


def test_frame_for_another_merchants_origin_is_refused(client, session, other_merchant_account):
    other_merchant_account.allowed_origins = ["https://other-shop.example"]
    other_merchant_account.save()

    response = client.get(FRAME_URL, frame_params(session, parent_origin="https://other-shop.example"))

    assert_error(response, 403, "/parent_origin", location="query")


def test_frame_accepts_only_get_and_head(client, session):
    response = client.post(f"{FRAME_URL}?field=number&session_id={session.id}&parent_origin={SHOP}")

    assert_error(response, 405)
    assert response["Allow"] == "GET, HEAD"


# --- the demo shop --------------------------------------------------------------------------------------

DEMO_URL = "/demo/checkout/"


@pytest.fixture
def demo(settings, tmp_path, merchant_account, api_key, private_key_pem):
    merchant_account.allowed_origins = ["http://localhost:8000", "http://127.0.0.1:8000"]
    merchant_account.save()
    key_path = tmp_path / "default-api-key.pem"
    key_path.write_text(private_key_pem)
    settings.DEBUG = True
    settings.DEMO_CHECKOUT_PRIVATE_KEY = str(key_path)
    settings.SECURE_FIELDS_ORIGIN = ""
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", API_HOST]
    return merchant_account


def decode(token: str, private_key_pem: str) -> dict:
    public_key = load_private_pem(private_key_pem).public_key()
    return jwt.decode(token, public_key, algorithms=["ES512"])


@pytest.mark.parametrize(
    ("host", "api_origin"),
    [("localhost:8000", "http://127.0.0.1:8000"), ("127.0.0.1:8000", "http://localhost:8000")],
    ids=["from-localhost", "from-127.0.0.1"],
)
def test_demo_mints_a_pinned_embed_token_for_a_fresh_session(demo, private_key_pem, host, api_origin):
    response = Client(HTTP_HOST=host).get(DEMO_URL)

    assert response.status_code == 200
    context = response.context
    session = CheckoutSession.objects.get()
    assert session.merchant_account == demo
    assert context["session_id"] == str(session.id)
    assert (context["amount"], context["currency"], context["country"]) == (1299, "USD", "US")
    assert context["api_origin"] == api_origin
    claims = decode(context["token"], private_key_pem)
    assert claims["scopes"] == ["embed"]
    assert claims["embed"] == {"amount": 1299, "currency": "USD"}
    assert claims["checkout_session_id"] == str(session.id)
    html = response.content.decode()
    assert f'src="{api_origin}/static/checkout/embed.js"' in html


def test_demo_says_beside_the_test_cards_how_to_pay_with_3_d_secure(demo):
    html = Client(HTTP_HOST="localhost:8000").get(DEMO_URL).content.decode()

    cards = html.split('id="test-cards"', 1)[1].split("</p>", 1)[0]
    assert "4000 0000 0000 3220" in cards
    assert "three_d_secure_enabled" in cards
    assert "PUT /payment-services/{id}" in cards


def test_demo_pins_the_token_to_a_returning_buyer(demo, private_key_pem):
    buyer_id = str(uuid.uuid4())

    response = Client(HTTP_HOST="localhost:8000").get(DEMO_URL, {"buyer_id": buyer_id})

    assert response.status_code == 200
    assert response.context["buyer_id"] == buyer_id
    assert decode(response.context["token"], private_key_pem)["embed"] == {
        "amount": 1299,
        "currency": "USD",
        "buyer_id": buyer_id,
    }
    assert f'data-buyer-id="{buyer_id}"' in response.content.decode()


def test_demo_refuses_a_buyer_id_that_is_no_uuid(demo):
    response = Client(HTTP_HOST="localhost:8000").get(DEMO_URL, {"buyer_id": "ada"})

    assert_error(response, 400, "/buyer_id", location="query")
    assert not CheckoutSession.objects.exists()


def test_demo_page_policy_lets_only_the_api_origin_in(demo):
    response = Client(HTTP_HOST="localhost:8000").get(DEMO_URL)

    nonce = response.context["csp_nonce"]
    directives = csp_directives(response)
    assert directives["script-src"] == f"'nonce-{nonce}' http://127.0.0.1:8000"
    assert directives["style-src"] == f"'nonce-{nonce}' http://127.0.0.1:8000"
    assert directives["frame-src"] == "http://127.0.0.1:8000"
    assert directives["connect-src"] == "http://127.0.0.1:8000"
    assert directives["frame-ancestors"] == "'none'"
    assert response["Cache-Control"] == "no-store"


def test_demo_uses_the_configured_secure_fields_origin(demo, settings):
    settings.SECURE_FIELDS_ORIGIN = f"https://{API_HOST}"

    response = Client(HTTP_HOST="localhost:8000").get(DEMO_URL)

    assert response.context["api_origin"] == f"https://{API_HOST}"


def test_demo_does_not_exist_without_debug(demo, settings):
    settings.DEBUG = False

    assert_error(Client(HTTP_HOST="localhost:8000").get(DEMO_URL), 404)
    assert not CheckoutSession.objects.exists()


@pytest.mark.parametrize(
    ("host", "status"),
    [("localhost:9000", 403), (API_HOST, 403)],
    ids=["port-not-allowed", "host-not-allowed"],
)
def test_demo_refuses_a_page_origin_the_merchant_does_not_allow(demo, host, status):
    body = assert_error(Client(HTTP_HOST=host).get(DEMO_URL), status)

    assert "allowed origin" in body["message"]
    assert not CheckoutSession.objects.exists()


def test_demo_refuses_to_serve_secure_fields_from_the_page_origin(demo, settings):
    settings.SECURE_FIELDS_ORIGIN = "http://localhost:8000"

    body = assert_error(Client(HTTP_HOST="localhost:8000").get(DEMO_URL), 503)

    assert "SECURE_FIELDS_ORIGIN" in body["message"]
    assert not CheckoutSession.objects.exists()


@pytest.mark.parametrize("key_text", [None, "not a key"], ids=["missing-key", "unreadable-key"])
def test_demo_explains_what_is_missing(demo, settings, tmp_path, key_text):
    path = tmp_path / "other.pem"
    if key_text is not None:
        path.write_text(key_text)
    settings.DEMO_CHECKOUT_PRIVATE_KEY = str(path)

    body = assert_error(Client(HTTP_HOST="localhost:8000").get(DEMO_URL), 503)

    assert "make run" in body["message"]
    assert not CheckoutSession.objects.exists()


def test_demo_links_the_returning_buyer_view_and_back(demo, django_assert_num_queries):
    client = Client(HTTP_HOST="localhost:8000")
    client.get(DEMO_URL)  # the demo's returning buyer exists from the first visit on
    buyer = Buyer.objects.get(merchant_account=demo, external_identifier="demo-returning-buyer")

    # The account, the returning buyer, the new session, the account's Google Pay wallet (none): the same few queries
    # on every visit after the first.
    with django_assert_num_queries(5):
        new_buyer = client.get(DEMO_URL)
    returning = client.get(DEMO_URL, {"buyer_id": str(buyer.pk)})

    assert f'href="?buyer_id={buyer.pk}"' in new_buyer.content.decode()
    assert 'href="?"' in returning.content.decode()
    assert "?buyer_id=" not in returning.content.decode().split('class="demo-views"')[1].split("</nav>")[0]
    assert Buyer.objects.filter(external_identifier="demo-returning-buyer").count() == 1


def test_the_demo_gives_embed_the_google_pay_wallets_merchant_id_and_public_key(demo):
    client = Client(HTTP_HOST="localhost:8000")
    assert 'data-google-pay-merchant-id=""' in client.get(DEMO_URL).content.decode()  # no wallet: no Google Pay
    wallet = register(demo, provider="google", extra_configuration={"merchant_id": "12345678901234567890"})

    page = client.get(DEMO_URL).content.decode()

    assert 'data-google-pay-merchant-id="12345678901234567890"' in page
    assert f'data-google-pay-public-key="{wallet.keys.get().public_key}"' in page
