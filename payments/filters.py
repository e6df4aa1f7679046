"""django-filter wired to the error envelope: a bad filter is a 400 naming the query parameter."""

from django_filters.rest_framework import DjangoFilterBackend

from payments.errors import QueryValidationError


class QueryFilterBackend(DjangoFilterBackend):
    """Filters from the query string; invalid values are reported with `location: query`."""

    def filter_queryset(self, request, queryset, view):
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        if not filterset.is_valid():
            raise QueryValidationError({name: list(errors) for name, errors in filterset.errors.items()})
        return filterset.qs
