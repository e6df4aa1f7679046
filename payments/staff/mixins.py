"""Building blocks for every app's admin."""

from django.db.models import Model
from django.http import HttpRequest


class ReadOnlyAdminMixin:
    """Rows only services write: viewable in the admin, never added, edited or deleted there.

    For model admins and inlines alike: `obj` is the row (or, on an inline, its parent row) when there is one.
    """

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
