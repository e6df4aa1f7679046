"""Request logging: one JSON line per request with the request id, and nothing secret in it."""

import io
import json
import logging

import pytest

from buyers.tests.factories import BuyerFactory
from payments.middleware.request_id import RequestIdLogFilter
from payments.middleware.routes import route_template
from payments.ops.logging import CardDataMaskingFilter, JsonFormatter, RequestPathFilter

pytestmark = pytest.mark.django_db

CARD_NUMBER = "4111111111111111"


@pytest.fixture
def json_lines():
    """Everything logged while the test runs, as the production handler writes it, parsed line by line."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdLogFilter())
    handler.addFilter(RequestPathFilter())
    handler.addFilter(CardDataMaskingFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()], stream
    finally:
        root.removeHandler(handler)


def test_a_request_logs_exactly_one_json_line_with_its_fields(api_client, api_key, json_lines):
    read, stream = json_lines
    client = api_client(scopes=["buyers.read"])
    token = client._credentials["HTTP_AUTHORIZATION"].split()[1]

    response = client.get("/buyers", {"limit": 5})

    assert response.status_code == 200
    [line] = read()
    assert line["logger"] == "payments.access"
    assert line["level"] == "INFO"
    assert line["request_id"] == response["X-Request-Id"]
    assert line["merchant_account"] == "default"
    assert line["method"] == "GET"
    assert line["route"] == "/buyers"
    assert line["status"] == 200
    assert isinstance(line["duration_ms"], float)
    assert line["kid"] == api_key.kid
    assert line["client_address"] == "127.0.0.1"
    assert token not in stream.getvalue()
    assert "limit=5" not in stream.getvalue()


def test_the_route_template_is_logged_never_the_raw_path(api_client, merchant_account, json_lines):
    read, stream = json_lines
    buyer = BuyerFactory(merchant_account=merchant_account)

    response = api_client(scopes=["buyers.read"]).get(f"/buyers/{buyer.id}")

    assert response.status_code == 200
    [line] = read()
    assert line["route"] == "/buyers/{buyer_id}"
    assert str(buyer.id) not in stream.getvalue()


def test_a_refused_request_is_logged_without_account_or_kid(anonymous_client, json_lines):
    read, _ = json_lines

    response = anonymous_client.get("/buyers", HTTP_AUTHORIZATION="Bearer not-a-token")

    assert response.status_code == 401
    access = [line for line in read() if line["logger"] == "payments.access"]
    assert len(access) == 1
    assert access[0]["status"] == 401
    assert access[0]["kid"] is None
    assert access[0]["merchant_account"] is None
    assert "not-a-token" not in json.dumps(read())


def test_djangos_own_warning_lines_carry_the_request_id(anonymous_client, json_lines):
    read, _ = json_lines

    response = anonymous_client.get("/no-such-endpoint", HTTP_X_REQUEST_ID="trace-abc.123")

    assert response.status_code == 404
    assert response["X-Request-Id"] == "trace-abc.123"
    by_logger = {line["logger"]: line for line in read()}
    assert by_logger["django.request"]["request_id"] == "trace-abc.123"
    assert by_logger["django.request"]["status_code"] == 404
    assert by_logger["payments.access"]["request_id"] == "trace-abc.123"
    assert by_logger["payments.access"]["route"] is None


@pytest.mark.parametrize(
    ("method", "path", "status", "route"),
    [
        ("put", "/checkout/sessions/{id}/fields", 404, "/checkout/sessions/{session_id}/fields"),
        ("get", "/checkout/sessions/{id}", 401, "/checkout/sessions/{session_id}"),
        ("get", "/checkout/sessions/{id}/nope", 404, "(unmatched path)"),
        ("get", "/buyers/{id}%00", 404, "(unmatched path)"),  # detail routes match UUIDs only
    ],
    ids=["secure-fields-404", "session-401", "unmatched-404", "escaped-nul"],
)
def test_djangos_own_lines_name_the_route_never_the_path(anonymous_client, json_lines, method, path, status, route):
    read, stream = json_lines
    secret = "0f8fad5b-d9cb-469f-a165-70867728950e"

    send = getattr(anonymous_client, method)
    response = (
        send(path.format(id=secret), "{}", content_type="application/json")
        if method == "put"
        else send(path.format(id=secret))
    )

    assert response.status_code == status
    [line] = [line for line in read() if line["logger"] == "django.request"]
    assert line["message"].endswith(f": {route}")
    assert secret not in stream.getvalue()


@pytest.mark.parametrize(
    "incoming",
    ["", "has space", "x" * 129, "new\nline", "semi;colon"],
    ids=["missing", "space", "too-long", "newline", "punctuation"],
)
def test_an_unusable_incoming_request_id_is_replaced(anonymous_client, incoming):
    response = anonymous_client.get("/healthz", HTTP_X_REQUEST_ID=incoming)

    assert response["X-Request-Id"] != incoming
    assert len(response["X-Request-Id"]) == 32


def test_lines_outside_a_request_have_no_request_id(json_lines):
    read, _ = json_lines

    logging.getLogger("payments.test").warning("outside any request")

    [line] = read()
    assert line["request_id"] == "-"
    assert line["message"] == "outside any request"


def test_json_lines_mask_card_numbers_in_messages_and_fields(json_lines):
    read, stream = json_lines

    logging.getLogger("payments.test").info(
        "charging %s", CARD_NUMBER, extra={"card": CARD_NUMBER, "nested": {"numbers": [CARD_NUMBER]}}
    )

    [line] = read()
    assert CARD_NUMBER not in stream.getvalue()
    assert line["message"] == "charging 411111******1111"
    assert line["card"] == "411111******1111"
    assert line["nested"] == {"numbers": ["411111******1111"]}


def test_json_lines_keep_only_plain_values_from_extra(json_lines):
    read, _ = json_lines

    logging.getLogger("payments.test").info("x", extra={"count": 3, "obj": object(), "request": object()})

    [line] = read()
    assert line["count"] == 3
    assert "obj" not in line
    assert "request" not in line


def test_json_lines_include_the_masked_traceback(json_lines):
    read, _ = json_lines

    try:
        raise ValueError(f"bad card {CARD_NUMBER}")
    except ValueError:
        logging.getLogger("payments.test").exception("failed")

    [line] = read()
    assert "ValueError: bad card 411111******1111" in line["exception"]
    assert CARD_NUMBER not in line["exception"]


@pytest.mark.parametrize(
    ("route", "template"),
    [
        ("^buyers$", "/buyers"),
        ("^buyers/(?P<buyer_id>[^/.]+)$", "/buyers/{buyer_id}"),
        (
            "^transactions/(?P<transaction_id>[^/.]+)/refunds/(?P<refund_id>[^/.]+)$",
            "/transactions/{transaction_id}/refunds/{refund_id}",
        ),
        ("checkout/sessions/<uuid:session_id>/fields", "/checkout/sessions/{session_id}/fields"),
        ("items/<slug>", "/items/{slug}"),
        ("^a/(?P<x>(?:b|c)+)/d$", "/a/{x}/d"),
        ("healthz", "/healthz"),
    ],
    ids=["list", "detail", "nested", "converter", "bare-converter", "nested-group", "plain"],
)
def test_route_template(route, template):
    assert route_template(route) == template
