"""The generated OpenAPI document and the interactive docs: complete, warning-free and offline."""

import importlib
import importlib.util
import re
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
