"""The contract of the upstream document (contracts/gr4vy/) and the validation of one answer against it."""

from __future__ import annotations

import json
from datetime import date, datetime
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker  # type: ignore[import-untyped]
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import contracts

DOCUMENT_URI = "urn:upstream-openapi"


@cache
def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(contracts.GR4VY.read_text())
    return document


def _formats() -> FormatChecker:
    """The formats the document uses, checked strictly (jsonschema checks `date-time` only with an extra package)."""
    checker = FormatChecker(["uuid", "email"])

    @checker.checks("date-time", raises=ValueError)
    def is_date_time(value: object) -> bool:
        return not isinstance(value, str) or datetime.fromisoformat(value).tzinfo is not None

    @checker.checks("date", raises=ValueError)
    def is_date(value: object) -> bool:
        return not isinstance(value, str) or bool(date.fromisoformat(value))

    @checker.checks("json-pointer")
    def is_pointer(value: object) -> bool:
        return not isinstance(value, str) or value == "" or value.startswith("/")

    return checker


@cache
def _registry() -> Registry:
    resource = Resource.from_contents(_document(), default_specification=DRAFT202012)
    return Registry().with_resource(DOCUMENT_URI, resource)


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


# Fields the official SDK requires in an answer that the (older) upstream document does not list, by object type:
# answered, and left out of this check.
SDK_ONLY_FIELDS = {"payment-service": {"refund_ingestion_enabled"}}


def _without_sdk_only_fields(body: Any) -> Any:
    if isinstance(body, list):
        return [_without_sdk_only_fields(item) for item in body]
    if not isinstance(body, dict):
        return body
    extra = SDK_ONLY_FIELDS.get(body.get("type"), set()) if isinstance(body.get("type"), str) else set()
    return {key: _without_sdk_only_fields(value) for key, value in body.items() if key not in extra}


def validate(path: str, method: str, response: Any) -> None:
    """Validate `response` against the schema the document gives `method path` for its status."""
    operation = _document()["paths"][path][method.lower()]
    status = str(response.status_code)
    assert status in operation["responses"], f"{method} {path} never answers {status} upstream: {response.content!r}"
    content = operation["responses"][status].get("content")
    if content is None:
        assert not response.content, f"{method} {path} {status} has a body upstream does not have"
        return
    pointer = "/".join(["#", "paths", _escape(path), method.lower(), "responses", status, "content"])
    schema = {"$ref": f"{DOCUMENT_URI}{pointer}/{_escape('application/json')}/schema"}
    validator = Draft202012Validator(schema, registry=_registry(), format_checker=_formats())
    body = _without_sdk_only_fields(response.json())
    errors = sorted(validator.iter_errors(body), key=lambda error: list(error.absolute_path))
    assert not errors, f"{method} {path} {status}:\n" + "\n".join(
        f"  at /{'/'.join(map(str, error.absolute_path))}: {error.message[:300]}" for error in errors[:10]
    )
