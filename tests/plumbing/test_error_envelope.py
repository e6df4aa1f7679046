"""Every error the server can answer uses the one JSON envelope: no HTML page, no traceback."""

import json
import logging

import pytest
from rest_framework.test import APIClient

from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/nope", "/nope/", "/buyers/x/y", "/static/missing.js"])
def test_unknown_url_is_a_404_envelope(path, anonymous_client):
    assert_error(anonymous_client.get(path), 404)


# Paths this server does not serve (beside gift card issuance and activation, a buyer's or a transaction's
# sub-resources): no route matches, whatever the method, where a detail route used to catch them and answer 405.
UNSERVED = [
    ("post", "/gift-cards/issue"),
    ("post", "/gift-cards/activate"),
    ("put", "/gift-cards/balance"),
    ("post", "/gift-cards/bulk"),
    ("post", "/buyers/import"),
    ("post", "/transactions/sync"),
    ("post", "/payment-methods/tokens"),
    ("post", "/checkout/sessions/batch"),
    ("post", "/webhook-subscriptions/test"),
]


@pytest.mark.parametrize(("method", "path"), UNSERVED, ids=[f"{m} {p}" for m, p in UNSERVED])
def test_an_unserved_path_is_a_404_envelope_whatever_the_method(method, path, api_client, merchant_account):
    response = getattr(api_client(), method)(path, {}, format="json")

    assert_error(response, 404)
    assert "Allow" not in response


def test_a_detail_route_still_takes_any_spelling_of_a_uuid(api_client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    client = api_client(scopes=["buyers.read"])

    assert client.get(f"/buyers/{buyer.id}").status_code == 200
    assert client.get(f"/buyers/{str(buyer.id).upper()}").status_code == 200
    assert client.get(f"/buyers/{buyer.id.hex}").status_code == 200


def test_unknown_buyer_is_a_404_envelope(api_client):
    response = api_client(scopes=["buyers.read"]).get("/buyers/6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11")

    assert_error(response, 404)


@pytest.mark.parametrize(
    ("method", "path"),
    [("patch", "/buyers/{id}"), ("delete", "/buyers"), ("put", "/buyers"), ("post", "/buyers/{id}")],
    ids=["patch buyer", "delete list", "put list", "post buyer"],
)
def test_wrong_method_is_a_405_envelope_with_allow(method, path, api_client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)

    response = getattr(api_client(), method)(path.format(id=buyer.id), {}, format="json")

    assert_error(response, 405)
    assert method.upper() not in response["Allow"]


def test_wrong_method_on_a_plain_django_view_keeps_allow(anonymous_client):
    response = anonymous_client.post("/healthz")

    assert_error(response, 405)
    assert "GET" in response["Allow"]
    assert "POST" not in response["Allow"]


@pytest.mark.parametrize(
    "body", ["{", '{"display_name": "x",}', "\xff\xfe", "nan"], ids=["open", "comma", "bytes", "nan"]
)
def test_malformed_json_is_a_400_envelope(body, api_client, merchant_account):
    response = api_client().post("/buyers", body, content_type="application/json")

    details = assert_error(response, 400)["details"]
    assert [(d["location"], d["pointer"]) for d in details] == [("body", "/")]
    assert not Buyer.objects.exists()


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
)
def test_wrong_content_type_is_a_415_envelope(content_type, api_client, merchant_account):
    response = api_client().post("/buyers", "display_name=x", content_type=content_type)

    assert_error(response, 415)
    assert not Buyer.objects.exists()


def test_body_too_large_is_a_413_envelope(api_client, merchant_account, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    body = json.dumps({"display_name": "x" * 150})

    response = api_client().post("/buyers", body, content_type="application/json")

    assert_error(response, 413)
    assert not Buyer.objects.exists()


def test_body_too_large_is_refused_before_authentication(anonymous_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100

    response = anonymous_client.post("/buyers", "x" * 101, content_type="application/json")

    assert_error(response, 413)


@pytest.mark.urls("tests.plumbing.failing_urls")
@pytest.mark.parametrize("path", ["/test-only/api-boom", "/test-only/django-boom"], ids=["drf view", "django view"])
def test_unhandled_exception_is_a_500_envelope_logged_with_the_request_id(path, caplog):
    client = APIClient()

    with caplog.at_level(logging.ERROR, logger="payments.request"):
        response = client.get(path, HTTP_X_REQUEST_ID="req-123")

    body = assert_error(response, 500)
    assert "secret internals" not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    assert body["details"] == []
    assert response["X-Request-Id"] == "req-123"
    [record] = [r for r in caplog.records if r.name == "payments.request"]
    assert record.request_id == "req-123"
    assert record.exc_info[0].__name__ == "SecretBoom"


@pytest.mark.urls("tests.plumbing.failing_urls")
def test_request_id_is_generated_when_absent_or_unsafe(caplog):
    with caplog.at_level(logging.ERROR, logger="payments.request"):
        response = APIClient().get("/test-only/django-boom", HTTP_X_REQUEST_ID="bad id\nwith newline")

    generated = response["X-Request-Id"]
    assert generated != "bad id\nwith newline"
    assert len(generated) == 32
    assert [r.request_id for r in caplog.records if r.name == "payments.request"] == [generated]


@pytest.mark.urls("tests.plumbing.failing_urls")
@pytest.mark.parametrize(
    ("path", "status"),
    [("/test-only/not-found", 404), ("/test-only/forbidden", 403)],
    ids=["Http404", "PermissionDenied"],
)
def test_django_http_exceptions_keep_their_status(path, status):
    """Http404 raised by a plain view is a 404, not an unhandled 500."""
    assert_error(APIClient().get(path), status)


def test_admin_pages_keep_their_html_errors(admin_client):
    response = admin_client.get("/admin/no-such-app/")

    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")
