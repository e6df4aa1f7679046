"""The one error envelope every response with a 4xx/5xx status uses.

`{"type":"error","code":...,"status":...,"message":...,"details":[{location,pointer,message,type}]}`.
Services raise `payments.errors.DomainError` subclasses; DRF and Django errors are translated here, so an
endpoint never answers with an HTML page or a traceback.
"""

import logging
from collections.abc import Iterator
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from rest_framework import exceptions, serializers
from rest_framework.response import Response

from payments.database_detail import withhold_database_detail
from payments.errors import DomainError, detail
from payments.rest.outputs import ConstantField, OutputSerializer
from payments.vault.masking import mask_card_numbers

logger = logging.getLogger("payments.errors")

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    409: "duplicate_record",
    411: "length_required",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    417: "expectation_failed",
    425: "too_early",
    429: "too_many_requests",
    431: "request_header_fields_too_large",
    500: "server_error",
    501: "not_implemented",
    502: "bad_gateway",
    503: "service_unavailable",
    504: "gateway_timeout",
}
# Upstream's message for every 400, which clients (the vendor's own SDK test suites) match: a refusal's own reason
# follows it after a colon (`validation_message`), and its details name the fields.
VALIDATION_FAILED = "Request failed validation"
DEFAULT_MESSAGES = {
    400: VALIDATION_FAILED,
    401: "No valid API authentication found",
    403: "Access to this resource is not allowed",
    404: "The resource could not be found",
    405: "Method not allowed",
    500: "Request could not be processed",
}


class QueryValidationError(exceptions.ValidationError):
    """A validation error about the query string rather than the body."""

    location = "query"


def _shown(text: str) -> str:
    """`text` as an answer may show it: card numbers masked, and nothing a database error quotes of its data."""
    return mask_card_numbers(withhold_database_detail(text))


def validation_message(reason: str | None) -> str:
    """The message of a 400: upstream's words, then the specific reason when there is one."""
    if not reason or reason == VALIDATION_FAILED or reason.startswith(f"{VALIDATION_FAILED}:"):
        return reason or VALIDATION_FAILED
    return f"{VALIDATION_FAILED}: {reason}"


def envelope(
    status_code: int, message: str | None = None, details: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    """The envelope for `status_code`. Every error answer is rendered here, so this is where card numbers are
    masked: pointers name the client's keys and some messages quote its values. A message that quotes a database
    error (a service's own words never do) keeps its message and loses the row it failed on. Every 400's message
    is upstream's "Request failed validation", whoever raised it, with its own reason after it."""
    if status_code == 400:
        message = validation_message(message)
    return {
        "type": "error",
        "code": CODES.get(status_code, "server_error" if status_code >= 500 else "bad_request"),
        "status": status_code,
        "message": _shown(message or DEFAULT_MESSAGES.get(status_code, "Request could not be processed")),
        "details": [
            {**entry, "pointer": _shown(entry["pointer"]), "message": _shown(entry["message"])}
            for entry in details or []
        ],
    }


def error_response(
    status_code: int, message: str | None = None, details: list[dict[str, str]] | None = None
) -> JsonResponse:
    """A plain Django response carrying the envelope, for code outside DRF (middleware, URL fallbacks)."""
    return JsonResponse(envelope(status_code, message, details), status=status_code)


def _flatten(errors: Any, pointer: str = "") -> Iterator[tuple[str, str, str]]:
    """Turn DRF's nested error structure into (JSON pointer, message, code) triples."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            child = pointer if key in ("non_field_errors", "__all__") else f"{pointer}/{key}"
            yield from _flatten(value, child)
    elif isinstance(errors, list):
        if all(isinstance(item, str) for item in errors):
            for item in errors:
                yield pointer or "/", str(item), getattr(item, "code", "invalid")
        else:
            for index, item in enumerate(errors):
                if item:
                    yield from _flatten(item, f"{pointer}/{index}")
    else:
        yield pointer or "/", str(errors), getattr(errors, "code", "invalid")


def validation_details(exc: exceptions.ValidationError) -> list[dict[str, str]]:
    location = getattr(exc, "location", "body")
    return [detail(location, pointer, message, code) for pointer, message, code in _flatten(exc.detail)]


def _api_exception_response(exc: exceptions.APIException) -> Response:
    code = exc.status_code
    if isinstance(exc, exceptions.ValidationError):
        body = envelope(code, None, validation_details(exc))
    elif isinstance(exc, exceptions.ParseError):
        body = envelope(
            code, f"Request body is not valid JSON: {exc.detail}", [detail("body", "/", str(exc.detail), "parse_error")]
        )
    else:
        body = envelope(code, str(exc.detail) if isinstance(exc.detail, str) else None)
    response = Response(body, status=code)
    auth_header = getattr(exc, "auth_header", None)  # set by DRF on 401s from the authenticator
    if auth_header:
        response["WWW-Authenticate"] = auth_header
    wait = getattr(exc, "wait", None)
    if wait:
        response["Retry-After"] = str(int(wait))
    return response


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's EXCEPTION_HANDLER: every error raised inside an API view becomes the envelope."""
    if isinstance(exc, DomainError):
        return Response(envelope(exc.status, exc.message, exc.details), status=exc.status)
    if isinstance(exc, Http404):
        return Response(envelope(404), status=404)
    if isinstance(exc, DjangoPermissionDenied):
        return Response(envelope(403), status=403)
    if isinstance(exc, exceptions.APIException):
        return _api_exception_response(exc)
    return None  # unexpected: the middleware logs it with the request id and answers a 500 envelope


class ErrorDetailOutput(OutputSerializer):
    """One problem with the request: where it is and what is wrong."""

    location = serializers.ChoiceField(choices=["query", "body", "path", "header", "unknown"])
    pointer = serializers.CharField(help_text="A JSON pointer to the offending query parameter, field or header.")
    message = serializers.CharField()
    type = serializers.CharField(help_text="The kind of problem, e.g. `required`, `invalid`, `unsupported`.")


class ErrorOutput(OutputSerializer):
    """The body of every error answer."""

    type = ConstantField("error")
    code = serializers.ChoiceField(choices=sorted(set(CODES.values())))
    status = serializers.IntegerField(help_text="The HTTP status of the answer, repeated.")
    message = serializers.CharField(help_text="What went wrong, for a developer to read.")
    details = ErrorDetailOutput(many=True, help_text="One entry per problem found; empty when there is no detail.")
