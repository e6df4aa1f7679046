"""Pivots: from one object's admin page to the rows of other apps that refer to it (a buyer's transactions, a gift
card's redemptions), without the page's app knowing those apps.

The app that owns the referring rows registers a `Pivot` from its `AppConfig.ready`; `PivotsMixin` shows every
pivot registered for the page's model as one read-only field: a bounded count, the newest rows, and a link to
the full list. Two queries per pivot, whatever the number of rows (three with a `summary`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

SHOWN = 5  # newest rows listed on the page
COUNTED = 1_000  # counted exactly up to this many; more reads "1,000+"


@dataclass(frozen=True)
class Pivot:
    """Rows of `model` whose `lookup` is the object's primary key, described one line each by `describe`."""

    target: str  # "app_label.model" of the page the pivot is shown on
    title: str
    model: type[Model]
    lookup: str  # "buyer_id"
    describe: Callable[[Any], str]  # one row as safe HTML
    changelist_param: str = ""  # "buyer__id__exact": where the full list is, when the model has an admin list
    select_related: tuple[str, ...] = ()  # what `describe` reads beyond the row
    # One line over all the rows (totals), from one aggregate query over them; shown under the title.
    summary: Callable[[QuerySet[Any]], str] | None = None


_pivots: dict[str, dict[str, Pivot]] = {}


def register(pivot: Pivot) -> None:
    """Show `pivot` on its target's admin page; registering a title again replaces it, so `ready()` may rerun."""
    _pivots.setdefault(pivot.target, {})[pivot.title] = pivot


def pivots_for(model: type[Model]) -> list[Pivot]:
    return list(_pivots.get(model._meta.label_lower, {}).values())


def render(obj: Model) -> SafeString:
    """Every pivot of `obj` as HTML: title, bounded count, newest rows, link to all of them."""
    sections = []
    for pivot in pivots_for(type(obj)):
        rows = pivot.model._default_manager.filter(**{pivot.lookup: obj.pk})
        count = rows.order_by()[: COUNTED + 1].count()
        newest = list(rows.select_related(*pivot.select_related).order_by("-created_at")[:SHOWN])
        counted = f"{COUNTED:,}+" if count > COUNTED else f"{count:,}"
        # The header says what the list holds: "(6)" over five rows reads as a row missing.
        shown = counted if count <= len(newest) else f"{len(newest)} newest of {counted}"
        link = ""
        if pivot.changelist_param and count:
            meta = pivot.model._meta
            url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
            link = format_html(' <a href="{}?{}={}">all</a>', url, pivot.changelist_param, obj.pk)
        items = format_html_join("", "<li>{}</li>", ((pivot.describe(row),) for row in newest))
        summary = format_html('<p class="pivot-summary">{}</p>', pivot.summary(rows)) if pivot.summary and count else ""
        sections.append(
            format_html(
                '<div class="pivot" data-pivot="{}"><strong>{} ({})</strong>{}{}<ul>{}</ul></div>',
                pivot.title.lower(),
                pivot.title,
                shown,
                link,
                summary,
                items,
            )
        )
    return format_html_join("", "{}", ((section,) for section in sections)) or SafeString("-")


class PivotsMixin:
    """Adds the read-only field `related`: the pivots registered for the admin's model (list it in `fields`)."""

    @admin.display(description="Related")
    def related(self, obj: Model) -> SafeString:
        return render(obj) if obj.pk else SafeString("-")
