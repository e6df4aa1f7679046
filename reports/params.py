"""`spec.params` checked against what the report's model offers: `fields` and `filters`, each name known."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reports.sources import ParamsError, ReportSource, Run

PARAMS = ("fields", "filters")


def params_check(source: ReportSource, params: object, run: Run) -> dict[str, Any]:
    """The params as stored, or ParamsError naming the first key, field or filter the model does not offer."""
    if not isinstance(params, Mapping):
        raise ParamsError("", "Must be an object with `fields` and `filters`.")
    for key in params:
        if key not in PARAMS:
            offered = ", ".join(PARAMS)
            raise ParamsError(
                f"/{key}", f"`{key}` is not a parameter of the `{source.name}` model: it takes {offered}."
            )
    fields = _fields(source, params.get("fields"))
    filters = _filters(source, params.get("filters"), run)
    return {"fields": fields, "filters": filters}


def _fields(source: ReportSource, fields: object) -> list[str] | None:
    if fields is None:
        return None
    if not source.fields_selectable:
        raise ParamsError("/fields", f"The `{source.name}` model's columns are fixed: leave `fields` out or null.")
    if not isinstance(fields, list) or not fields or not all(isinstance(name, str) for name in fields):
        raise ParamsError("/fields", "Must be a non-empty list of field names, or null for every field.")
    offered = set(source.fields)
    for index, name in enumerate(fields):
        if name not in offered:
            raise ParamsError(f"/fields/{index}", f"Unknown field `{name}` of the `{source.name}` model.")
    if len(set(fields)) != len(fields):
        raise ParamsError("/fields", "Name each field once.")
    return list(fields)


def _filters(source: ReportSource, filters: object, run: Run) -> dict[str, Any]:
    if filters is None:
        return {}
    if not isinstance(filters, Mapping):
        raise ParamsError("/filters", "Must be an object of filters, or null for none.")
    for name in filters:
        if name not in source.filters:
            raise ParamsError(f"/filters/{name}", f"Unknown filter `{name}` of the `{source.name}` model.")
    source.check(filters, run)
    return dict(filters)


def columns(source: ReportSource, params: Mapping[str, Any]) -> Sequence[str]:
    """The report's columns: the fields it names, else every field of its model."""
    return params.get("fields") or source.fields
