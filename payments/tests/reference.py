"""Validate answers against upstream's published schemas (the reference document beside the repository)."""

import json
from functools import cache
from pathlib import Path

import pytest
from django.conf import settings
from jsonschema import Draft202012Validator

REFERENCE = Path(settings.BASE_DIR).parent / "shared" / "reference" / "gr4vy-openapi-subset.json"


@cache
def _components() -> dict:
    return json.loads(REFERENCE.read_text())["components"]


def assert_matches_reference(instance: object, schema_name: str) -> None:
    """`instance` is valid against upstream's `components/schemas/<schema_name>` (refs resolved in the document)."""
    if not REFERENCE.exists():
        pytest.skip(f"the reference document is not at {REFERENCE}")
    validator = Draft202012Validator({"$ref": f"#/components/schemas/{schema_name}", "components": _components()})
    errors = sorted(validator.iter_errors(instance), key=lambda error: list(error.path))
    assert not errors, [f"{list(error.path)}: {error.message}" for error in errors]
