"""Admin pagination that stays cheap on tables of millions of rows."""

from functools import cached_property
from typing import TYPE_CHECKING, Any

from django.core.paginator import Paginator
from django.db.models import QuerySet

if TYPE_CHECKING:
    # Paginator is generic in django-stubs only: Django's own class cannot be subscripted at run time.
    PaginatorBase = Paginator[Any]
else:
    PaginatorBase = Paginator


class CappedCountPaginator(PaginatorBase):
    """Counts at most `CAP` rows: a bounded index scan instead of COUNT(*) over millions.

    Below the cap the count is exact (the usual case once a search or filter is applied); above it the
    admin shows the cap and offers pages up to it, which is as deep as anyone reads.
    """

    CAP = 10_000

    @cached_property
    def count(self) -> int:
        rows = self.object_list
        if not isinstance(rows, QuerySet):  # the admin pages querysets; anything else is counted as Django does
            return super().count
        return rows.order_by()[: self.CAP].count()
