"""Pivots: from one object's admin page to the rows of other apps that refer to it (a buyer's transactions, a gift
card's redemptions), without the page's app knowing those apps.

The app that owns the referring rows registers a `Pivot` from its `AppConfig.ready`; `PivotsMixin` shows every
pivot registered for the page's model as one read-only field: a bounded count, the newest rows, and a link to
the full list. Two queries per pivot, whatever the number of rows (three with a `summary`). A page that shows the
rows' buttons (`sections` with a user) reads what the buttons need once per pivot, and only for a user who may
press them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.contrib import admin
from django.db.models import Model, Prefetch, QuerySet
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

SHOWN = 5  # newest rows listed on the page
COUNTED = 1_000  # counted exactly up to this many; more reads "1,000+"


class Staff(Protocol):
    """Who reads the page: only what they may do matters here."""

    def has_perm(self, perm: str, obj: Any = None) -> bool: ...


@dataclass(frozen=True)
class RowActions:
    """The buttons of one pivot's rows, for staff with `permission`: `offered(row)` gives (label, url) pairs, each
    url a page that says what will happen and acts only on POST."""

    permission: str  # "transactions.operate_transaction"
    offered: Callable[[Any], list[tuple[str, str]]]
    prefetch_related: tuple[str | Prefetch[Any, Any, Any], ...] = ()  # what `offered` reads beyond the row


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
    actions: RowActions | None = None


@dataclass(frozen=True)
class Row:
    line: SafeString
    buttons: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Section:
    """One pivot as a page shows it: the header counts exactly what `rows` holds."""

    pivot: Pivot
    counted: str  # "2", or "5 newest of 6"
    link: str  # the full list, or ""
    summary: str
    rows: list[Row]

    @property
    def key(self) -> str:
        return self.pivot.title.lower()


_pivots: dict[str, dict[str, Pivot]] = {}


def register(pivot: Pivot) -> None:
    """Show `pivot` on its target's admin page; registering a title again replaces it, so `ready()` may rerun."""
    _pivots.setdefault(pivot.target, {})[pivot.title] = pivot


def pivots_for(model: type[Model]) -> list[Pivot]:
    return list(_pivots.get(model._meta.label_lower, {}).values())


def _section(pivot: Pivot, obj: Model, user: Staff | None) -> Section:
    rows = pivot.model._default_manager.filter(**{pivot.lookup: obj.pk})
    count = rows.order_by()[: COUNTED + 1].count()
    acts = pivot.actions if pivot.actions and user is not None and user.has_perm(pivot.actions.permission) else None
    newest_rows = rows.select_related(*pivot.select_related).order_by("-created_at")
    if acts:
        newest_rows = newest_rows.prefetch_related(*acts.prefetch_related)
    newest = list(newest_rows[:SHOWN])
    counted = f"{COUNTED:,}+" if count > COUNTED else f"{count:,}"
    link = ""
    if pivot.changelist_param and count:
        meta = pivot.model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        link = f"{url}?{pivot.changelist_param}={obj.pk}"
    return Section(
        pivot=pivot,
        # "(6)" over five rows reads as a row missing.
        counted=counted if count <= len(newest) else f"{len(newest)} newest of {counted}",
        link=link,
        summary=pivot.summary(rows) if pivot.summary and count else "",
        rows=[Row(SafeString(pivot.describe(row)), acts.offered(row) if acts else []) for row in newest],
    )


def sections(obj: Model, user: Staff | None = None) -> list[Section]:
    """Every pivot of `obj`, with the buttons `user` may press (none without a user)."""
    return [_section(pivot, obj, user) for pivot in pivots_for(type(obj))]


def render(obj: Model) -> SafeString:
    """Every pivot of `obj` as HTML: title, bounded count, newest rows, link to all of them."""
    html = [
        format_html(
            '<div class="pivot" data-pivot="{}"><strong>{} ({})</strong>{}{}<ul>{}</ul></div>',
            section.key,
            section.pivot.title,
            section.counted,
            format_html(' <a href="{}">all</a>', section.link) if section.link else "",
            format_html('<p class="pivot-summary">{}</p>', section.summary) if section.summary else "",
            format_html_join("", "<li>{}</li>", ((row.line,) for row in section.rows)),
        )
        for section in sections(obj)
    ]
    return format_html_join("", "{}", ((part,) for part in html)) or SafeString("-")


class PivotsMixin:
    """Adds the read-only field `related`: the pivots registered for the admin's model (list it in `fields`)."""

    @admin.display(description="Related")
    def related(self, obj: Model) -> SafeString:
        return render(obj) if obj.pk else SafeString("-")
