"""The admin site staff land on: the support desk, with panels the apps contribute to its start page.

Installed through `payments.staff.apps.SupportDeskAdminConfig` in place of `django.contrib.admin`, so every
`admin.register` lands here. An app adds a start-page panel from its `AppConfig.ready` with
`register_panel(render)`, where `render(request)` returns the panel's HTML; this package knows no app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.safestring import SafeString

Panel = Callable[[HttpRequest], SafeString]
_panels: dict[str, Panel] = {}


def register_panel(name: str, render: Panel) -> None:
    """Show `render(request)` at the top of the admin's start page; a name registered again is replaced."""
    _panels[name] = render


class SupportDeskSite(admin.AdminSite):
    site_header = site_title = "Payments support desk"
    index_title = "Last 24 hours"
    # The server has no public site to view: the start page is this one, so the header's link is hidden.
    site_url = None
    index_template = "admin/support_desk_index.html"

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        panels = [render(request) for render in _panels.values()]
        return super().index(request, {**(extra_context or {}), "panels": panels})
