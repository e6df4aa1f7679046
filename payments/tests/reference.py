"""Validate answers against upstream's published schemas (the project's contract of them, contracts/gr4vy/)."""

import json
from functools import cache

from jsonschema import Draft202012Validator

import contracts


@cache
def _components() -> dict:
    return json.loads(contracts.GR4VY.read_text())["components"]


def assert_matches_reference(instance: object, schema_name: str) -> None:
    """`instance` is valid against upstream's `components/schemas/<schema_name>` (refs resolved in the document)."""
    validator = Draft202012Validator({"$ref": f"#/components/schemas/{schema_name}", "components": _components()})
    errors = sorted(validator.iter_errors(instance), key=lambda error: list(error.path))
    assert not errors, [f"{list(error.path)}: {error.message}" for error in errors]
