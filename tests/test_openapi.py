"""The generated OpenAPI document and the interactive docs: complete, warning-free and offline."""

import importlib
import importlib.util
import json
import re
import uuid
from datetime import date
from io import StringIO

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.urls import URLPattern, URLResolver

pytestmark = pytest.mark.django_db

IGNORED_METHODS = {"head", "options"}


def _route(pattern) -> str:
    """`^buyers/(?P<buyer_id>[^/.]+)$` or `checkout/<uuid:id>` -> `buyers/{buyer_id}` / `checkout/{id}`."""
    text = str(pattern.pattern).lstrip("^").rstrip("$").removesuffix("\\Z")
    text = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", text)
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", text)


def _endpoints(patterns, prefix: str = ""):
    """(path, method) for every API view under these patterns, as the views themselves declare them."""
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _endpoints(entry.url_patterns, prefix + _route(entry))
            continue
        assert isinstance(entry, URLPattern)
        view = entry.callback
        view_class = getattr(view, "cls", None)
        if view_class is None or getattr(view_class, "schema", True) is None:
            continue  # not an API view, or deliberately left out of the schema
        path = "/" + prefix + _route(entry)
        actions = getattr(view, "actions", None)
        methods = actions.keys() if actions else (m for m in view_class.http_method_names if hasattr(view_class, m))
        for method in methods:
            if method not in IGNORED_METHODS:
                yield path, method


def registered_api_endpoints() -> set[tuple[str, str]]:
    """Every endpoint in every installed app's `api/urls.py`: the test grows with the project."""
    endpoints = set()
    for app in apps.get_app_configs():
        module_name = f"{app.name}.api.urls"
        if _has_module(module_name):
            endpoints |= set(_endpoints(importlib.import_module(module_name).urlpatterns))
    return endpoints


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


@pytest.fixture
def schema(client) -> dict:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")
    return response.json()


def test_schema_builds_without_warnings_or_errors(tmp_path):
    """`--fail-on-warn` turns every drf-spectacular warning into an error; `--validate` checks OpenAPI 3."""
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"), stdout=StringIO()
    )

    assert (tmp_path / "schema.yaml").stat().st_size > 0


def test_schema_lists_every_registered_endpoint(schema):
    expected = registered_api_endpoints()
    documented = {(path, method) for path, operations in schema["paths"].items() for method in operations}

    assert ("/buyers", "get") in expected  # the enumeration itself works
    assert expected - documented == set()


def test_buyer_schema_matches_the_wire_format(schema):
    buyer = schema["components"]["schemas"]["BuyerOutput"]

    assert set(buyer["properties"]) >= {
        "type",
        "id",
        "reconciliation_id",
        "merchant_account_id",
        "display_name",
        "external_identifier",
        "billing_details",
        "account_number",
        "created_at",
        "updated_at",
    }
    assert schema["paths"]["/buyers"]["post"]["responses"].keys() >= {"201"}
    assert schema["paths"]["/buyers/{buyer_id}"]["delete"]["responses"].keys() >= {"204"}
    assert schema["components"]["securitySchemes"]["BearerAuth"]["scheme"] == "bearer"


def test_a_capture_its_wrapper_and_the_void_wrapper_share_upstreams_status_enum(schema):
    """Upstream's `CaptureStatus` (and `VoidStatus`, of the same values, `pending` included): one enum, not one per
    serializer."""
    components = schema["components"]["schemas"]
    enum = {"$ref": "#/components/schemas/CaptureStatusEnum"}

    for name in ("CaptureOutput", "TransactionCaptureOutput", "TransactionVoidOutput"):
        status = components[name]["properties"]["status"]
        assert status.get("allOf", [status])[0] == enum, name
    assert set(components["CaptureStatusEnum"]["enum"]) == {"succeeded", "pending", "declined", "failed"}


def test_docs_page_uses_only_local_assets(client):
    response = client.get("/docs/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
    assert urls, "the page loads no assets at all?"
    static_prefix = "/" + settings.STATIC_URL.lstrip("/")
    for url in urls:
        assert url.startswith(static_prefix), f"{url} is not one of the app's static files"
        assert finders.find(url.removeprefix(static_prefix)), f"{url} does not exist"
    assert not re.search(r"https?://(?!127\.0\.0\.1|localhost)", html), "the page refers to a remote host"
    assert '"validatorUrl": null' in html  # Swagger UI would otherwise post the schema to an online validator


def test_every_operation_documents_the_body_of_its_success_response(schema):
    """Every 2xx answer with a body has a schema, so `/docs/` never shows "No response body" for one."""
    undocumented = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            successes = {code: response for code, response in operation["responses"].items() if code.startswith("2")}
            if not successes:
                undocumented.append(f"{method.upper()} {path}: no success response")
            for code, response in successes.items():
                body = response.get("content", {}).get("application/json", {}).get("schema")
                if code != "204" and not body:
                    undocumented.append(f"{method.upper()} {path} {code}")

    assert undocumented == []


# --- an API document people can use -------------------------------------------------------------------------

INTERNAL_TEXT = re.compile(r"For a view with|^`(GET|POST|PUT|DELETE) /|\[\.\.\.\]`|viewset|serializer", re.I | re.M)


def _operations(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            yield path, method, operation


def test_every_operation_has_a_summary_and_a_description_for_api_users(schema):
    missing = []
    for path, method, operation in _operations(schema):
        summary, description = operation.get("summary", ""), operation.get("description", "")
        if not summary or not description or summary == description or INTERNAL_TEXT.search(description):
            missing.append(f"{method.upper()} {path}: {summary!r} / {description[:60]!r}")

    assert missing == [], "write the view's docstring (docs/api-document.md)"


def test_every_response_has_a_description_and_every_error_the_envelope(schema):
    envelope = {"$ref": "#/components/schemas/ErrorOutput"}
    for path, method, operation in _operations(schema):
        for status, response in operation["responses"].items():
            assert response["description"], f"{method} {path} {status}"
            if status.startswith(("4", "5")):
                assert response["content"]["application/json"]["schema"] == envelope, f"{method} {path} {status}"
    error = schema["components"]["schemas"]["ErrorOutput"]
    assert set(error["required"]) >= {"type", "code", "status", "message", "details"}


def _path_with_ids(path: str) -> str:
    return re.sub(r"\{[^}]+\}", lambda _: str(uuid.uuid4()), path)


def _send(client, method: str, path: str, **extra):
    body = {} if method in ("post", "put") else None
    return getattr(client, method)(path, body, format="json", **extra)


@pytest.mark.parametrize(
    ("caller", "query"),
    [
        pytest.param("anonymous", "", id="no-token"),
        pytest.param("no-scope", "", id="token-without-scopes"),
        pytest.param("foreign-account", "", id="merchant-account-the-key-may-not-use"),
        pytest.param("full", "", id="ids-that-do-not-exist-and-an-empty-body"),
        pytest.param("full", "?not_a_parameter=1", id="unknown-query-parameter"),
    ],
)
def test_every_answer_to_a_refused_request_is_documented(schema, api_client, anonymous_client, caller, query):
    """Each operation asked in a way it must refuse: whatever it answers is a status its document lists."""
    clients = {
        "anonymous": lambda: anonymous_client,
        "no-scope": lambda: api_client(scopes=["nothing.read"]),
        "foreign-account": lambda: api_client(merchant_account_id="no-such-account"),
        "full": lambda: api_client(),
    }
    client = clients[caller]()
    undocumented = []
    for path, method, operation in _operations(schema):
        response = _send(client, method, _path_with_ids(path) + query)
        if str(response.status_code) not in operation["responses"]:
            undocumented.append(f"{method.upper()} {path} answered {response.status_code}: {response.content[:120]!r}")

    assert undocumented == []


def test_every_answer_past_a_rate_limit_is_documented(schema, api_client, anonymous_client, settings):
    """An embed token over its budget, and Secure Fields over a session's: twice each operation, one allowed."""
    from django.core.cache import caches

    settings.RATELIMIT_EMBED = "1/h"
    settings.RATELIMIT_CHECKOUT_FIELDS = "1/h"
    caches["ratelimit"].clear()
    embed = api_client(scopes=["embed"], embed={"amount": 1299, "currency": "USD"})
    limited, undocumented = set(), []
    for path, method, operation in _operations(schema):
        client = anonymous_client if operation.get("security") == [] else embed
        concrete = _path_with_ids(path)
        for _ in range(2):
            response = _send(client, method, concrete)
            if response.status_code == 429:
                limited.add(f"{method.upper()} {path}")
            if str(response.status_code) not in operation["responses"]:
                undocumented.append(f"{method.upper()} {path} answered {response.status_code}")

    assert undocumented == []
    assert "POST /transactions" in limited  # the budget was really spent


MISSING = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39"}
# Bodies naming an object that does not exist, one for each kind of reference a body can make.
MISSING_REFERENCES = [
    (
        "/transactions",
        {"amount": 100, "currency": "USD", "payment_method": {"method": "checkout-session", "id": MISSING}},
    ),
    ("/transactions", {"amount": 100, "currency": "USD", "payment_method": {"method": "id", "id": MISSING}}),
    ("/transactions", {"amount": 100, "currency": "USD", "buyer_id": MISSING, "payment_method": CARD}),
    ("/transactions", {"amount": 100, "currency": "USD", "gift_cards": [{"id": MISSING, "amount": 100}]}),
    ("/payment-methods", {"method": "checkout-session", "id": MISSING, "buyer_id": MISSING}),
    ("/payment-methods", {**CARD, "buyer_id": MISSING}),
    ("/gift-cards", {"number": "4123450000000008", "pin": "1234", "buyer_id": MISSING}),
]


@pytest.mark.parametrize(("path", "body"), MISSING_REFERENCES, ids=lambda value: json.dumps(value)[:60])
def test_a_body_naming_an_object_that_does_not_exist_answers_a_documented_status(schema, api_client, path, body):
    response = api_client().post(path, body, format="json")

    assert 400 <= response.status_code < 500
    assert str(response.status_code) in schema["paths"][path]["post"]["responses"], response.content[:200]


def test_examples_fit_their_schemas_and_look_real(schema):
    from jsonschema import Draft202012Validator

    examples = {}

    def walk(node, where):
        if isinstance(node, dict):
            if "example" in node and "type" in node:
                examples[where] = node["example"]
                errors = list(
                    Draft202012Validator({k: v for k, v in node.items() if k != "example"}).iter_errors(node["example"])
                )
                assert errors == [], f"{where}: {errors[0].message}"
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, f"{where}/{index}")

    walk(schema, "#")
    card = "#/components/schemas/CardPaymentMethodInputRequest/properties"
    assert examples[f"{card}/number"] == "4111111111111111"  # a documented test card (docs/test-cards.md)
    month, year = map(int, examples[f"{card}/expiration_date"].split("/"))
    assert (2000 + year, month) > (date.today().year, date.today().month)
    assert examples["#/components/schemas/TransactionCreateInputRequest/properties/currency"] == "USD"
    assert examples["#/components/schemas/AddressRequest/properties/country"] == "US"


def test_the_merchant_account_header_and_idempotency_key_are_documented(schema):
    for path, method, operation in _operations(schema):
        headers = {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "header"}
        if operation.get("security") == []:
            assert "401" not in operation["responses"], f"{method} {path} reads no token"
            continue
        if path.startswith(("/merchant-accounts", "/api-key-pairs", "/roles")):
            # Merchant account administration names its account in the path, as upstream, and key pairs and roles
            # are the key's own: the header is not read.
            assert "x-gr4vy-merchant-account-id" not in headers, f"{method} {path}"
            continue
        assert "x-gr4vy-merchant-account-id" in headers, f"{method} {path}"
        assert headers["x-gr4vy-merchant-account-id"]["description"]
    create = schema["paths"]["/transactions"]["post"]
    key = next(p for p in create["parameters"] if p["name"] == "idempotency-key")
    assert "replayed" in key["description"]
    assert "409" in create["responses"]
    assert schema["paths"]["/checkout/sessions/{session_id}/fields"]["put"]["security"] == []


def test_the_security_scheme_says_how_to_get_a_token(schema):
    bearer = schema["components"]["securitySchemes"]["BearerAuth"]

    assert bearer["bearerFormat"] == "JWT"
    assert "issue_token" in bearer["description"]
    assert "create_api_key" in bearer["description"]
    assert "ES512" in schema["info"]["description"]


def test_each_operation_names_its_security_once(schema):
    """An operation reads the bearer token, or none at all (Secure Fields): never the same scheme twice."""
    for path, method, operation in _operations(schema):
        assert operation["security"] in ([{"BearerAuth": []}], []), f"{method} {path}"


class _Documented:
    """A viewset's docstring sections document the actions it inherits."""

    def list(self, request):
        pass

    def create(self, request):
        """Create a widget.

        Makes one widget for the merchant account.
        It may take a while, and a name already taken is a
        409: a status wrapped into a sentence stays text.

        409: A widget with this name exists
            in the merchant account.
        429: Too many widgets
            today.
        """


_Documented.__doc__ = """Widgets (a note for developers, not in the document).

list:
    List widgets
    The widgets, newest first.
"""


def test_operation_text_comes_from_the_action_docstring_or_the_viewset_section():
    from payments.apidoc.text import operation_text

    created = operation_text(_Documented, "create")
    listed = operation_text(_Documented, "list")

    assert created.summary == "Create a widget"
    assert created.description == (
        "Makes one widget for the merchant account.\nIt may take a while, and a name already taken is a\n"
        "409: a status wrapped into a sentence stays text."
    )
    assert created.statuses == {
        "409": "A widget with this name exists in the merchant account.",
        "429": "Too many widgets today.",
    }
    assert (listed.summary, listed.description, listed.statuses) == ("List widgets", "The widgets, newest first.", {})
    assert operation_text(_Documented, "retrieve").summary == ""
