"""The front door: `/` for a person who opened the server in a browser, and the slash-free forms of API paths.

The API's paths carry no trailing slash (as upstream's). A path that differs from one only by a final slash is
redirected there with 308, which keeps the method and the body, so `/buyers/` behaves as `/buyers`. Every other
unknown URL keeps answering the JSON 404 envelope.
"""

from pathlib import Path

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import Resolver404, ResolverMatch, URLPattern, resolve
from django.urls.resolvers import RegexPattern
from django.views.decorators.http import require_safe

from payments.rest.envelope import error_response
from paymentservices.processors import PROCESSORS

GUIDES_DIR = Path(settings.BASE_DIR) / "docs" / "guides"
# In reading order: the front door lists them so. A processor's guide is `docs/guides/<its slug>.md`, titled from the
# registry (a processor with no guide file has no entry).
GUIDES = {
    "first-payment": "Take your first payment",
    "saved-cards": "Save a card and charge it again",
    "webhooks": "Receive webhooks",
    "digital-wallets": "Offer Apple Pay and Google Pay",
    **{
        processor.slug: f"Connect {processor.display_name} and pay through it"
        for processor in PROCESSORS
        if (GUIDES_DIR / f"{processor.slug}.md").is_file()
    },
    "production": "Go to production",
}


class PermanentRedirectKeepingMethod(HttpResponsePermanentRedirect):
    status_code = 308


def _guides() -> list[tuple[str, str]]:
    """The guides present in this installation (a deployment may ship without `docs/`)."""
    return [(slug, title) for slug, title in GUIDES.items() if (GUIDES_DIR / f"{slug}.md").is_file()]


@require_safe
def front_door(request: HttpRequest) -> HttpResponse:
    """A small page leading to the API docs, the admin, the demo (debug only) and the guides."""
    return render(request, "ops/front_door.html", {"guides": _guides(), "demo": settings.DEBUG})


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask every site for one; an empty answer keeps a 404 out of every page's console (the admin's)."""
    response = HttpResponse(status=204)
    response["Cache-Control"] = "public, max-age=86400"
    return response


@require_safe
def guide(request: HttpRequest, slug: str) -> HttpResponseBase:
    """One guide's Markdown, as plain text: only the names listed above, never a path a client chose."""
    if slug not in dict(_guides()):
        return error_response(404)
    response = FileResponse((GUIDES_DIR / f"{slug}.md").open("rb"), content_type="text/plain; charset=utf-8")
    response["X-Content-Type-Options"] = "nosniff"
    return response


def without_trailing_slash(request: HttpRequest, path: str) -> HttpResponseBase:
    """`/buyers/` -> 308 to `/buyers`, the query kept."""
    query = request.META.get("QUERY_STRING", "")
    return PermanentRedirectKeepingMethod(f"/{path}?{query}" if query else f"/{path}")


class _SlashFormPattern(URLPattern):
    """Matches `<route>/` only when `<route>` is a route: an unknown URL stays unknown, so Django's own
    APPEND_SLASH (the admin's `/admin` -> `/admin/`) never sends a client from one 404 to another."""

    def resolve(self, path: str) -> ResolverMatch | None:
        match = super().resolve(path)
        if match is None:
            return None
        try:
            resolve("/" + match.kwargs["path"])
        except Resolver404:
            return None
        return match


def slash_form_pattern() -> URLPattern:
    return _SlashFormPattern(RegexPattern(r"^(?P<path>.*[^/])/$", is_endpoint=True), without_trailing_slash)
