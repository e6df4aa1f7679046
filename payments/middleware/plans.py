"""Searches and filters run their statements unprepared, each planned for the values it carries.

A connection prepares a statement it has run often (`config/settings.py`), and PostgreSQL may then run it on a
generic plan, chosen without the values. For a read by key, a write or a plain page that is the plan it would have
chosen anyway, planned once. For a filter over skewed data it can read every row where the values' own plan reads a
few: at 1,000,000 transactions `GET /transactions?country=GB` (no such row) took 507 ms from its tenth run on instead
of 7, `GET /buyers?search=` 671 instead of 2, the desk's ledger search by reference 211 instead of 17
(docs/performance.md). So two kinds of request plan every statement afresh, which costs PostgreSQL a fraction of a
millisecond each:

- a read of the API whose query string holds anything besides paging (`cursor`, `limit`): a filter or a search;
- every request of the desk, whose lists are searches and filters for a person who clicked.
"""

from django.db import connection
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.urls import reverse

from payments.middleware import GetResponse
from payments.postgresql.preparing import statements_unprepared
from payments.rest.query import names_more_than_paging

READS = frozenset({"GET", "HEAD"})


class PlannedForValuesMiddleware:
    """Around the request's whole handling, its rendering included (a desk page's filters run statements there)."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response
        self._desk: str | None = None

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not self._filters(request):
            return self.get_response(request)
        with statements_unprepared(connection):
            return self.get_response(request)

    def _filters(self, request: HttpRequest) -> bool:
        if self._desk is None:
            self._desk = reverse("admin:index")  # the URLconf is loaded by the first request, not before
        if request.path.startswith(self._desk):
            return True
        return request.method in READS and names_more_than_paging(request.GET)
