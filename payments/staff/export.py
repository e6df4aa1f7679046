"""A desk list as a CSV file: every row the list holds for its filters and search (not only the page shown),
streamed a batch at a time, in the columns the list's admin names, with spreadsheet formulas defused."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.db.models import Model
from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone

from payments.spreadsheets import csv_lines

logger = logging.getLogger("payments.staff.export")
EXPORT_BATCH = 500

# A column of the file: its header and how a row gives its value (plain data: never a link or markup).
Column = tuple[str, Callable[[Any], Any]]


if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[Any]
else:
    _ModelAdmin = admin.ModelAdmin


class CsvExportMixin(_ModelAdmin):
    """Adds `<list>/export.csv`, linked from the list as "Export CSV" with the list's own query string; whoever may
    view the list may export it. The log names who exported how many rows of what, never a row's data."""

    export_columns: Sequence[Column] = ()

    def get_urls(self) -> list[URLPattern]:
        opts = self.model._meta
        export = self.admin_site.admin_view(self.export_csv_view)
        name = f"{opts.app_label}_{opts.model_name}_export"
        return [path("export.csv", export, name=name), *super().get_urls()]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        opts = self.model._meta
        export_url = reverse(f"admin:{opts.app_label}_{opts.model_name}_export")
        return super().changelist_view(request, {**(extra_context or {}), "export_url": export_url})

    def export_csv_view(self, request: HttpRequest) -> HttpResponseBase:
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            changelist = self.get_changelist_instance(request)
        except IncorrectLookupParameters:
            return HttpResponse("The list's filters are not ones it offers.", status=400, content_type="text/plain")
        rows = changelist.get_queryset(request).iterator(chunk_size=EXPORT_BATCH)
        header = [title for title, _ in self.export_columns]
        response = StreamingHttpResponse(
            csv_lines(header, self._export_rows(request, rows)), content_type="text/csv; charset=utf-8"
        )
        stamp = timezone.now().strftime("%Y-%m-%dT%H%M%SZ")
        response["Content-Disposition"] = f'attachment; filename="{self.model._meta.model_name}s-{stamp}.csv"'
        return response

    def _export_rows(self, request: HttpRequest, rows: Iterator[Model]) -> Iterator[list[Any]]:
        count = 0
        for row in rows:
            count += 1
            yield [value(row) for _, value in self.export_columns]
        logger.info(
            "Staff user %s exported %d %s rows (filters: %s)",
            request.user.pk,
            count,
            self.model._meta.model_name,
            sorted(request.GET),
        )
