"""The router every resource app registers its viewsets with.

A detail route matches ids only: every resource id is a UUID, so `/gift-cards/issue` (an upstream path this
server does not serve) matches no route and is the 404 envelope, like any unknown URL. With DRF's default
(`[^/.]+`) the detail route caught it, and a POST there answered 405, as if the path existed with other
methods. A viewset whose ids are not UUIDs says so with its own `lookup_value_regex`.
"""

from typing import Any

from rest_framework.routers import SimpleRouter

# Any spelling Django's UUIDField reads back (hyphens optional, either case): a path's id, a filter's value.
UUID_PATTERN = r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"


class ApiRouter(SimpleRouter):
    """DRF's `SimpleRouter` without trailing slashes, whose detail routes match UUIDs unless a viewset says
    otherwise."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trailing_slash", False)
        super().__init__(**kwargs)

    def get_lookup_regex(self, viewset: Any, lookup_prefix: str = "") -> str:
        if getattr(viewset, "lookup_value_regex", None) is None:
            lookup_field = getattr(viewset, "lookup_field", "pk")
            lookup_url_kwarg = getattr(viewset, "lookup_url_kwarg", None) or lookup_field
            return f"(?P<{lookup_prefix}{lookup_url_kwarg}>{UUID_PATTERN})"
        regex: str = super().get_lookup_regex(viewset, lookup_prefix)
        return regex
