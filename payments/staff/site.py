"""The admin site staff land on: the support desk, with panels the apps contribute to its start page.

Installed through `payments.staff.apps.SupportDeskAdminConfig` in place of `django.contrib.admin`, so every
`admin.register` lands here. An app adds a start-page panel from its `AppConfig.ready` with
`register_panel(render)`, where `render(request)` returns the panel's HTML, and a finder for the start page's
search box with `payments.staff.search.register_finder`; this package knows no app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    index_title = "Last 24 hours"
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

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        term = clean_term(request.GET.get("q", ""))
        context = {
            "panels": [render(request) for render in _panels.values()],
            "desk_term": term,
            "desk_results": desk_search(term, has_perm=request.user.has_perm) if term else None,
        }
        return super().index(request, {**(extra_context or {}), **context})
