"""The front door: `/` leads somewhere, trailing-slash forms of API paths reach the API, and every other unknown URL
is still the JSON 404 envelope."""

import json

import pytest

from buyers.tests.factories import BuyerFactory

pytestmark = pytest.mark.django_db

ENVELOPE_KEYS = {"type", "code", "status", "message", "details"}


def assert_not_found(response) -> None:
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    body = json.loads(response.content)
    assert set(body) == ENVELOPE_KEYS
    assert (body["type"], body["code"], body["status"]) == ("error", "not_found", 404)


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "production"])
def test_the_front_door_links_the_docs_the_admin_and_the_guides(client, settings, debug):
    settings.DEBUG = debug

    response = client.get("/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    for href in ('href="/docs/"', 'href="/openapi.json"', 'href="/admin/"', 'href="/guides/first-payment"'):
        assert href in page
    # The demo exists only in debug mode: production does not advertise a 404.
    assert ('href="/demo/checkout/"' in page) is debug


def test_the_front_door_touches_no_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert client.get("/").status_code == 200


def test_the_favicon_is_an_empty_answer_not_a_404(client):
    response = client.get("/favicon.ico")

    assert response.status_code == 204
    assert response.content == b""


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_the_front_door_refuses_writes_in_the_envelope(client, method):
    response = getattr(client, method)("/")

    assert response.status_code == 405
    assert json.loads(response.content)["code"] == "method_not_allowed"


@pytest.mark.parametrize("slug", ["first-payment", "saved-cards", "webhooks", "stripe", "adyen", "production"])
def test_each_guide_is_served_as_text(client, slug):
    response = client.get(f"/guides/{slug}")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert b"".join(response.streaming_content).startswith(b"# ")


@pytest.mark.parametrize(
    "path", ["/guides/nothing", "/guides/..%2Fdeploy", "/guides/architecture", "/guides/first-payment.md"]
)
def test_only_listed_guides_are_served(client, path):
    assert_not_found(client.get(path))


@pytest.mark.parametrize(
    "path",
    ["/buyers/", "/transactions/", "/gift-cards/", "/checkout/sessions/", "/payment-methods/", "/audit-logs/"],
)
def test_list_paths_with_a_trailing_slash_redirect_to_the_list(api_client, merchant_account, path):
    client = api_client()

    response = client.get(f"{path}?limit=5")

    assert response.status_code == 308  # the method and the body survive the redirect
    assert response["Location"] == f"{path.rstrip('/')}?limit=5"


def test_following_the_redirect_answers_as_the_path_without_the_slash(api_client, merchant_account):
    BuyerFactory(merchant_account=merchant_account, display_name="Ada")
    client = api_client(scopes=["buyers.read"])

    redirected = client.get(client.get("/buyers/?limit=5")["Location"])

    assert redirected.status_code == 200
    assert redirected.json()["limit"] == 5
    assert redirected.json() == client.get("/buyers?limit=5").json()


def test_a_post_to_the_slash_form_keeps_its_method_and_body(api_client, merchant_account):
    client = api_client(scopes=["buyers.write"])

    response = client.post("/buyers/", {"display_name": "Ada"}, format="json", follow=True)

    assert response.status_code == 201
    assert response.json()["display_name"] == "Ada"


@pytest.mark.parametrize("path", ["/nothing", "/nothing/", "/buyers/gift-cards/x/y/", "/index.html", "/robots.txt/"])
def test_every_other_unknown_url_is_the_json_404(client, path):
    assert_not_found(client.get(path))


def test_guides_and_redirects_touch_no_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert client.get("/guides/first-payment").status_code == 200
        assert client.get("/buyers/").status_code == 308
        assert client.get("/favicon.ico").status_code == 204
