"""Finishing touches on the OpenAPI document drf-spectacular generates for the API."""

from __future__ import annotations

from typing import Any

# Marks a constant's schema (`payments.rest.outputs.ConstantField`) until the hook below inlines it.
CONSTANT_KEY = "x-constant"


def inline_constants(result: dict[str, Any], generator: object, **kwargs: Any) -> dict[str, Any]:
    """Show each constant as a one-value enum in place (`"type": {"enum": ["buyer"]}`).

    Runs after spectacular's enum hook, which would otherwise make every constant a shared enum component
    with a made-up name.
    """
    _inline(result)
    return result


def _inline(node: object) -> None:
    if isinstance(node, dict):
        if CONSTANT_KEY in node:
            node["enum"] = [node.pop(CONSTANT_KEY)]
        for value in node.values():
            _inline(value)
    elif isinstance(node, list):
        for item in node:
            _inline(item)
