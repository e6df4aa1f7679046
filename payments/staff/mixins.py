"""Building blocks for every app's admin."""

from django.http import HttpRequest


class ReadOnlyAdminMixin:
    """Rows only services write: viewable in the admin, never added, edited or deleted there."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
