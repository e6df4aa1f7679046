"""`spec.params` checked against what the report's model offers: `fields`, `filters` and `sort`, each name known."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import F
from django.db.models.expressions import OrderBy

from reports.sources import ParamsError, ReportSource, Run

PARAMS = ("fields", "filters", "sort")
ORDERS = ("asc", "desc")


def params_check(source: ReportSource, params: object, run: Run) -> dict[str, Any]:
    """The params as stored, or ParamsError naming the first key, field or filter the model does not offer."""
    if not isinstance(params, Mapping):
        raise ParamsError("", "Must be an object with `fields`, `filters` and `sort`.")
    for key in params:
        if key not in PARAMS:
            offered = ", ".join(PARAMS)
            raise ParamsError(
                f"/{key}", f"`{key}` is not a parameter of the `{source.name}` model: it takes {offered}."
            )
    fields = _fields(source, params.get("fields"))
    filters = _filters(source, params.get("filters"), run)
    checked: dict[str, Any] = {"fields": fields, "filters": filters}
    sort = _sort(source, params.get("sort"))
    if sort:  # kept only when asked for, so a report without one reads as it always did
        checked["sort"] = sort
    return checked


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


def _sort(source: ReportSource, sort: object) -> list[dict[str, str]]:
    """Upstream's `[{"field": ..., "order": "asc"|"desc"}]`, each a field the model can order on, named once."""
    if sort is None:
        return []
    if not isinstance(sort, list):
        raise ParamsError("/sort", "Must be a list of {field, order} objects, or null for the model's own order.")
    checked: list[dict[str, str]] = []
    for index, item in enumerate(sort):
        if not isinstance(item, Mapping):
            raise ParamsError(f"/sort/{index}", "Must be an object with `field` and `order`.")
        for key in item:
            if key not in ("field", "order"):
                raise ParamsError(f"/sort/{index}/{key}", f"`{key}` is not part of a sort: it takes field and order.")
        field, order = item.get("field"), item.get("order", "asc")
        if not isinstance(field, str) or field not in source.sortable:
            offered = ", ".join(source.sortable)
            raise ParamsError(
                f"/sort/{index}/field",
                f"The `{source.name}` model cannot be sorted by `{field}`; it sorts by {offered}.",
            )
        if field in (earlier["field"] for earlier in checked):
            raise ParamsError(f"/sort/{index}/field", f"`{field}` is sorted by once only.")
        if order not in ORDERS:
            raise ParamsError(f"/sort/{index}/order", f"Unknown order `{order}`: asc or desc.")
        checked.append({"field": field, "order": order})
    return checked


def ordering(source: ReportSource, params: Mapping[str, Any]) -> list[OrderBy]:
    """The database order of a report's `sort`; empty values last either way, so every database agrees."""
    return [
        F(source.sortable[item["field"]]).desc(nulls_last=True)
        if item["order"] == "desc"
        else F(source.sortable[item["field"]]).asc(nulls_last=True)
        for item in params.get("sort") or ()
    ]


def columns(source: ReportSource, params: Mapping[str, Any]) -> Sequence[str]:
    """The report's columns: the fields it names, else every field of its model."""
    return params.get("fields") or source.fields
