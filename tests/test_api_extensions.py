"""docs/api-contracts.md, "Extensions beyond upstream", names everything this server serves that upstream's document
does not define: the operations, query parameters and fields of the app's own document (`/openapi.json`) that the
contract (contracts/gr4vy/openapi-subset.json) lacks, and every URL route outside the API document."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.servers import ROOT

pytestmark = pytest.mark.django_db

CONTRACT = json.loads((ROOT / "contracts" / "gr4vy" / "openapi-subset.json").read_text())
METHODS = ("get", "post", "put", "patch", "delete")


def _section() -> str:
    text = (ROOT / "docs" / "api-contracts.md").read_text()
    assert "## Extensions beyond upstream" in text
    return text.split("## Extensions beyond upstream", 1)[1].split("\n## ", 1)[0]


def _named(text: str, section: str) -> bool:
    """`text` is a code span of the section, or starts or ends one (`POST /path`, `/a`, `/b`)."""
    return re.search(r"`([^`]* )?" + re.escape(text) + r"`", section) is not None


@pytest.fixture
def document(client) -> dict:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    return json.loads(response.content)


def _deref(doc: dict, node: object) -> object:
    """The node a `$ref` chain ends at."""
    for _ in range(20):
        if not (isinstance(node, dict) and "$ref" in node):
            return node
        target: object = doc
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        node = target
    return node


def _names(doc: dict, schema: object, depth: int = 0) -> set[str]:
    """Every property name of a schema, nested ones too (a few levels: the shapes' own fields)."""
    schema = _deref(doc, schema)
    if not isinstance(schema, dict) or depth > 4:
        return set()
    names: set[str] = set()
    for key in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(key, []):
            names |= _names(doc, part, depth)
    if "items" in schema:
        names |= _names(doc, schema["items"], depth + 1)
    for name, sub in schema.get("properties", {}).items():
        names |= {name} | _names(doc, sub, depth + 1)
    return names


def _operations(doc: dict) -> Iterator[tuple[str, str, dict]]:
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield method.upper(), path, operation


def _json_schema(doc: dict, holder: object) -> object:
    holder = _deref(doc, holder)
    if not isinstance(holder, dict):
        return None
    return holder.get("content", {}).get("application/json", {}).get("schema")


def test_every_operation_beyond_the_contract_is_named(document):
    contract = {(method, path) for method, path, _ in _operations(CONTRACT)}
    beyond = [f"{method} {path}" for method, path, _ in _operations(document) if (method, path) not in contract]

    assert beyond, "the app's document has no operation of its own: is it read?"
    assert [operation for operation in beyond if not _named(operation, _section())] == []


def test_every_parameter_and_field_beyond_the_contract_is_named(document):
    section = _section()
    missing = []
    for method, path, operation in _operations(document):
        upstream = CONTRACT["paths"].get(path, {}).get(method.lower())
        if upstream is None:
            continue  # an operation of its own: named whole
        ours = {p["name"] for p in operation.get("parameters", []) if p.get("in") == "query"}
        theirs = {_deref(CONTRACT, p).get("name") for p in upstream.get("parameters", [])}
        fields = _names(document, _json_schema(document, operation.get("requestBody", {}))) - _names(
            CONTRACT, _json_schema(CONTRACT, upstream.get("requestBody", {}))
        )
        for status, response in operation.get("responses", {}).items():
            if status.startswith("2"):
                fields |= _names(document, _json_schema(document, response)) - _names(
                    CONTRACT, _json_schema(CONTRACT, upstream.get("responses", {}).get(status, {}))
                )
        missing += [
            f"{method} {path}: {name}" for name in sorted((ours - theirs) | fields) if not _named(name, section)
        ]

    assert missing == []


def _routes(patterns: list, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern


def _template(route: str) -> str:
    """A Django route or a router's regex as a path template: `/transactions/{transaction_id}/disputes`."""
    route = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", route.removeprefix("^").removesuffix("$"))
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def test_every_route_outside_the_api_document_is_named(document):
    section = _section()
    routes = {
        _template(route)
        for route, pattern in _routes(get_resolver().url_patterns)
        if not route.startswith("admin/")
        and "format" not in route  # DRF's `.json` suffix routes of the same operations
        and pattern.callback.__name__ != "without_trailing_slash"  # a redirect to the route without its slash
    }
    outside = sorted(route for route in routes if route not in document["paths"])

    assert "/inbound/payment-services/{payment_service_id}/notifications" in outside
    assert [route for route in outside if not _named(route, section)] == []
