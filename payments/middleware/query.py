"""A NUL character anywhere in the query string is a 400 naming the parameter, on every path.

No column can store a NUL (PostgreSQL refuses it in `text` and `jsonb` and fails the query), and a filter
that reaches the database with one would fail there as a 500. Refusing it here, once, covers every filter
of every list (and any parameter an endpoint reads), whatever form field or lookup it goes through; the
body's strings are checked the same way by the body parser (`payments.rest.parsers`).
"""

from django.http import HttpRequest
from django.http.response import HttpResponseBase

from payments.errors import detail
from payments.middleware import GetResponse
from payments.rest.envelope import error_response
from payments.rest.parsers import NUL, NUL_MESSAGE, pointer_token


class NulQueryMiddleware:
    """Refuse a query string whose parameter names or values hold a NUL, naming each such parameter."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if "%00" in request.META.get("QUERY_STRING", "").upper() or NUL in request.META.get("QUERY_STRING", ""):
            named = sorted(
                name for name, values in request.GET.lists() if NUL in name or any(NUL in value for value in values)
            )
            if named:
                details = [detail("query", f"/{pointer_token(name)}", NUL_MESSAGE, "null_character") for name in named]
                return error_response(400, None, details)
        return self.get_response(request)
