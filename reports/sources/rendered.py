"""Rows read from a resource as the API renders it: a field is a path into the rendered object, and a cell is its
value as a file holds it. The models built on an API's own rendering (transactions, payouts) share these."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Rendered = dict[str, Any]


def path(*keys: str) -> Callable[[Rendered], Any]:
    """The value at `keys` in a rendered object; None where a step is missing or not an object."""

    def value(rendered: Rendered) -> Any:
        current: Any = rendered
        for key in keys:
            if not isinstance(current, dict):
                return None
            current = current.get(key)
        return current

    return value


def cell(value: Any) -> Any:
    """A value as a file holds it: JSON for objects and lists, the API's spelling for everything else."""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return value
