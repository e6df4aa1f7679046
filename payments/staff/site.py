"""The admin site staff land on: the support desk, with panels the apps contribute to its start page.

Installed through `payments.staff.apps.SupportDeskAdminConfig` in place of `django.contrib.admin`, so every
`admin.register` lands here. An app adds a start-page panel from its `AppConfig.ready` with
`register_panel(render)`, where `render(request)` returns the panel's HTML, and a finder for the start page's
search box with `payments.staff.search.register_finder`; this package knows no app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.apps import apps as django_apps
from django.contrib import admin
from django.contrib.admin import actions
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.safestring import SafeString

from payments.audit.services import audit_staff_bulk_deletion
from payments.staff.login import LimitedAdminAuthenticationForm
from payments.staff.search import clean_term, desk_search

Panel = Callable[[HttpRequest], SafeString]
_panels: dict[str, Panel] = {}

# The start page's first section: what an agent opens all day, in this order. A model admin joins it with
# `desk_everyday = <position>`; one that says `desk_internal = True` goes to the last section, "Internals".
EVERYDAY = "Everyday"
INTERNALS = "Internals"


def register_panel(name: str, render: Panel) -> None:
    """Show `render(request)` at the top of the admin's start page; a name registered again is replaced."""
    _panels[name] = render


def delete_selected(
    modeladmin: admin.ModelAdmin[Any], request: HttpRequest, queryset: QuerySet[Model]
) -> HttpResponse | None:
    """Django's "delete selected", audited: the deletions and their audit entries commit together."""
    if not request.POST.get("post"):
        return actions.delete_selected(modeladmin, request, queryset)  # the confirmation page: nothing changes
    with transaction.atomic():
        objects = list(queryset)
        response = actions.delete_selected(modeladmin, request, queryset)
        if response is None:  # deleted (a page instead means refused, e.g. protected objects)
            audit_staff_bulk_deletion(request.user, objects)  # type: ignore[arg-type]
    return response


delete_selected.short_description = actions.delete_selected.short_description  # type: ignore[attr-defined]
delete_selected.allowed_permissions = actions.delete_selected.allowed_permissions  # type: ignore[attr-defined]


class SupportDeskSite(admin.AdminSite):
    site_header = site_title = "Payments support desk"
    index_title = "Overview"
    # The server has no public site to view: the start page is this one, so the header's link is hidden.
    site_url = None
    index_template = "admin/support_desk_index.html"
    # Failed sign-ins are limited per user name and client address (docs/admin.md).
    login_form = LimitedAdminAuthenticationForm
    # The start page lists every model already; the sidebar would take 290 px from every list, enough to push the
    # transaction list's last columns out of a 1280 px screen.
    enable_nav_sidebar = False

    def __init__(self, name: str = "admin") -> None:
        super().__init__(name)
        self.add_action(delete_selected, "delete_selected")  # replaces Django's own, unaudited one

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[dict[str, Any]]:
        app_list = super().get_app_list(request, app_label)
        return app_list if app_label is not None else desk_sections(app_list, self._registry)

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        term = clean_term(request.GET.get("q", ""))
        context = {
            "panels": [render(request) for render in _panels.values()],
            "desk_term": term,
            "desk_results": desk_search(term, has_perm=request.user.has_perm) if term else None,
        }
        return super().index(request, {**(extra_context or {}), **context})


def desk_sections(app_list: list[dict[str, Any]], registry: dict[type[Model], Any]) -> list[dict[str, Any]]:
    """The start page ordered by what an agent does: the everyday lists first (transactions, buyers, refunds,
    disputes), then each app's lists by the app's `desk_position`, then the internals (task results, rate limits,
    report downloads), instead of Django's alphabetical list."""
    everyday: list[tuple[int, dict[str, Any]]] = []
    internals: list[dict[str, Any]] = []
    apps: list[dict[str, Any]] = []
    for app in app_list:
        kept = []
        for entry in app["models"]:
            model_admin = registry.get(entry["model"])
            position = getattr(model_admin, "desk_everyday", None)
            if position is not None:
                everyday.append((position, entry))
            elif getattr(model_admin, "desk_internal", False):
                internals.append(entry)
            else:
                kept.append(entry)
        if kept:
            apps.append({**app, "models": kept})
    # An app that is not a staff app (users and groups) has no position: after every staff app.
    apps.sort(key=lambda app: getattr(django_apps.get_app_config(app["app_label"]), "desk_position", 100))
    first = _section(EVERYDAY, [entry for _, entry in sorted(everyday, key=lambda pair: pair[0])])
    return [section for section in (first, *apps, _section(INTERNALS, internals)) if section["models"]]


def _section(name: str, models: list[dict[str, Any]]) -> dict[str, Any]:
    """A start-page section of lists from several apps: it has no app page of its own, so its heading leads to its
    first list."""
    url = models[0]["admin_url"] if models else ""
    return {"name": name, "app_label": name.lower(), "app_url": url, "has_module_perms": True, "models": models}
