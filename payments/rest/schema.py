"""The API document (`/openapi.json`, `/docs/`): drf-spectacular's generator, with what every operation shares
derived from the views, so that a new endpoint is documented by its docstring alone (docs/api-document.md).

- Summary and description: the first line of the action's docstring and the rest; an action a viewset inherits
  (`list`, `retrieve`, `destroy`) takes the `<action>:` section of the viewset's own docstring instead.
- Error responses, in the envelope: 400 (every endpoint refuses unknown query parameters and bad input), 401 when
  it reads a token, 403 when it checks scopes and the merchant account, 404 when its path names an object, 409 when
  it honours `Idempotency-Key`, 429 when the action is rate limited. A docstring line `409: when ...` documents any
  other answer (a business rule) with its reason.
- The `x-gr4vy-merchant-account-id` header wherever the merchant account is resolved.
- Examples for request and response fields by name (`EXAMPLES`), kept only where they fit the field's schema.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import jsonschema  # drf-spectacular's own dependency (it validates documents with it)
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from payments.accounts.selectors import DEFAULT_MERCHANT_ACCOUNT
from payments.ratelimits.throttles import RateLimitedMixin
from payments.rest.envelope import ErrorOutput
from payments.rest.fields import StrictSerializerMixin
from payments.rest.idempotency import HEADER as IDEMPOTENCY_HEADER
from payments.rest.idempotency import honours_idempotency_key
from payments.rest.outputs import CONSTANT_KEY
from payments.rest.permissions import MerchantAccountAccess, ScopePermission
from payments.rest.query import KnownQueryParameters

MERCHANT_ACCOUNT_HEADER = "x-gr4vy-merchant-account-id"
_SECTION = re.compile(r"^(\w+):$")
_STATUS_LINE = re.compile(r"^([45]\d\d): (.+)$")


# --- the text of an operation -------------------------------------------------------------------------------


@dataclass(frozen=True)
class OperationText:
    """What a docstring says about one operation, for API users."""

    summary: str = ""
    description: str = ""
    # Answers the docstring documents itself (`409: when ...`): status -> when it is answered.
    statuses: dict[str, str] = field(default_factory=dict)


def operation_text(view_class: type, handler: str) -> OperationText:
    """The docstring of `handler` (an action or an HTTP method) when the project defines it, else the `handler:`
    section of the view's own docstring."""
    return _parse(_handler_docstring(view_class, handler) or _class_section(view_class, handler))


def _handler_docstring(view_class: type, handler: str) -> str:
    method = getattr(view_class, handler, None)
    if method is None or str(getattr(method, "__module__", "")).startswith("rest_framework"):
        return ""  # DRF's generic actions say nothing an API user needs
    return inspect.getdoc(method) or ""


def _class_section(view_class: type, handler: str) -> str:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in inspect.cleandoc(view_class.__dict__.get("__doc__") or "").splitlines():
        header = _SECTION.match(line)
        if header:
            current = sections.setdefault(header[1], [])
        elif current is not None:
            current.append(line)
    return textwrap.dedent("\n".join(sections.get(handler, []))).strip()


def _parse(docstring: str) -> OperationText:
    """A paragraph that starts with `NNN: ` documents answers, one a line (a reason may go on, indented); any other
    paragraph is text, so a sentence that happens to wrap before a status code stays in the description."""
    statuses: dict[str, str] = {}
    text: list[str] = []
    for paragraph in re.split(r"\n\s*\n", docstring.strip()):
        if not _STATUS_LINE.match(paragraph.partition("\n")[0]):
            text.append(paragraph)
            continue
        status = ""
        for line in paragraph.splitlines():
            match = _STATUS_LINE.match(line)
            if match:
                status = match[1]
                statuses[status] = match[2].strip()
            else:
                statuses[status] += " " + line.strip()  # the reason goes on
    summary, _, description = "\n\n".join(text).partition("\n")
    return OperationText(summary.strip().rstrip("."), description.strip(), statuses)


# --- what every operation shares ----------------------------------------------------------------------------

_ERRORS = {
    "400": "The request is not valid: a query parameter, header or body field is unknown, missing or malformed "
    "(`details` names each one), or the request breaks a rule of the operation.",
    "401": "No valid bearer token: it is missing, malformed, expired, or signed with a key the server does not "
    "know. The answer carries `WWW-Authenticate: Bearer`.",
    "403": "The token carries none of the scopes this operation accepts ({scopes}), or its API key may not act "
    "for the merchant account in `x-gr4vy-merchant-account-id`.",
    "404": "Nothing with this id exists in the merchant account (objects of other merchant accounts are not "
    "found either).",
    "409": "A request with the same `Idempotency-Key` is still being processed: retry it later.",
    "429": "Too many requests with this embed token or session: wait `Retry-After` seconds. Server-to-server "
    "tokens are never limited.",
}
_SUCCESSES = {"200": "Success.", "201": "Created.", "204": "Done; no body."}
_EMBED_403 = " An embed token may only do what its `embed` claim pins (amount, currency, buyer)."

_HEADERS = {
    IDEMPOTENCY_HEADER.lower(): "Up to 255 printable ASCII characters naming this request. The first answer is "
    "stored for 24 hours and replayed (with `Idempotent-Replayed: true`) for a retry of the same request; the same "
    "key with a different request is a 400.",
    "prefer": "`resource=transaction-capture` or `resource=transaction-void`: answer with the action (its status "
    "and the transaction) instead of the transaction alone.",
    MERCHANT_ACCOUNT_HEADER: "The merchant account to act for; `default` when absent. An API key bound to one "
    "merchant account may act for it only.",
}

_RESPONSE_HEADERS = [
    OpenApiParameter("WWW-Authenticate", str, OpenApiParameter.HEADER, response=["401"], description="`Bearer`"),
    OpenApiParameter(
        "Retry-After", int, OpenApiParameter.HEADER, response=["429"], description="Seconds until a retry may pass."
    ),
    *(
        OpenApiParameter(name, int, OpenApiParameter.HEADER, response=["429"], description=description)
        for name, description in [
            ("RateLimit-Limit", "Requests allowed in the window."),
            ("RateLimit-Remaining", "Requests left in the window."),
            ("RateLimit-Reset", "Seconds until the window ends."),
        ]
    ),
]


class ApiAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, filling in from each view what the module docstring lists."""

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        if operation is not None and not self.view.get_authenticators():
            operation["security"] = []  # reads no token (Secure Fields): not the document's default bearer token
        return operation

    def _handler(self) -> str:
        return getattr(self.view, "action", None) or self.method.lower()

    def _text(self) -> OperationText:
        return operation_text(type(self.view), self._handler())

    def get_summary(self) -> str | None:
        return self._text().summary or None

    def get_description(self) -> str:  # type: ignore[override]  # the base class declares no type
        return self._text().description

    def _permissions(self) -> list[Any]:
        return list(self.view.get_permissions())

    def _acts_for_merchant_account(self) -> bool:
        # A tuple: DRF's permission classes overload `|` to compose permissions.
        checks = (MerchantAccountAccess, ScopePermission)
        return any(isinstance(permission, checks) for permission in self._permissions())

    def _idempotent(self) -> bool:
        return honours_idempotency_key(getattr(self.view, self._handler(), None))

    def _rate_limited(self) -> bool:
        return isinstance(self.view, RateLimitedMixin) and bool(self.view.rate_limits.get(self._handler()))

    def get_override_parameters(self) -> list[Any]:
        parameters: list[Any] = list(_RESPONSE_HEADERS)
        # Views that name their account in the path (merchant account administration) do not read the header.
        if any(isinstance(permission, MerchantAccountAccess) for permission in self._permissions()):
            parameters.append(OpenApiParameter(MERCHANT_ACCOUNT_HEADER, str, OpenApiParameter.HEADER))
        if self._idempotent():
            parameters.append(OpenApiParameter(IDEMPOTENCY_HEADER.lower(), str, OpenApiParameter.HEADER))
        return parameters

    def _get_parameters(self) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super()._get_parameters()
        for parameter in parameters:
            if parameter["in"] == "header" and parameter["name"].lower() in _HEADERS:
                parameter.setdefault("description", _HEADERS[parameter["name"].lower()])
            if parameter["name"] == MERCHANT_ACCOUNT_HEADER:
                parameter["schema"] = {"type": "string", "pattern": "^[-a-zA-Z0-9_]{1,255}$"}
                parameter["example"] = DEFAULT_MERCHANT_ACCOUNT
            elif parameter["name"] == IDEMPOTENCY_HEADER.lower():
                parameter["schema"] = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"}
                parameter["example"] = "order-12345-payment"
        return parameters

    def error_responses(self) -> dict[str, str]:
        """Every error this operation can answer, with when it does."""
        errors: dict[str, str] = {}
        if any(isinstance(p, KnownQueryParameters) for p in self._permissions()) or self._get_request_body():  # type: ignore[no-untyped-call]
            errors["400"] = _ERRORS["400"]
        if self.view.get_authenticators():
            errors["401"] = _ERRORS["401"]
        if self._acts_for_merchant_account():
            errors["403"] = _ERRORS["403"].format(scopes=self._scopes())
            if "embed" in ScopePermission.accepted_scopes(self.view.request, self.view):
                errors["403"] += _EMBED_403
        if "{" in self.path:
            errors["404"] = _ERRORS["404"]
        if self._idempotent():
            errors["409"] = _ERRORS["409"]
        if self._rate_limited():
            errors["429"] = _ERRORS["429"]
        for status, reason in self._text().statuses.items():
            errors[status] = f"{reason} {errors[status]}" if status in errors else reason
        return errors

    def _scopes(self) -> str:
        scopes = ScopePermission.accepted_scopes(self.view.request, self.view)
        wildcards = {f"*.{scope.rpartition('.')[2]}" for scope in scopes if "." in scope}
        return ", ".join(f"`{scope}`" for scope in [*scopes, *sorted(wildcards)])

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)  # type: ignore[no-untyped-call]
        if direction == "request" and isinstance(serializer, StrictSerializerMixin):
            schema["additionalProperties"] = False  # an unknown field is refused by name
        # Only a serializer's own docstring describes it: an inherited one describes the base class.
        own = type(serializer).__dict__.get("__doc__")
        if own:
            schema["description"] = inspect.cleandoc(own)
        else:
            schema.pop("description", None)
        return schema

    def _is_list_view(self, serializer: Any = None) -> bool:
        # An unpaginated list still answers an object (`{"items": [...]}`, as upstream): this API has no bare arrays.
        # Asked without a serializer, the question is only how to name the operation (`..._list`): the same answer.
        if serializer is not None and self._get_paginator() is None:  # type: ignore[no-untyped-call]
            return False
        return bool(super()._is_list_view(serializer))

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        for status, response in responses.items():
            if not response.get("description"):
                response["description"] = _SUCCESSES.get(status, "Success.")
        for status, description in self.error_responses().items():
            error = OpenApiResponse(ErrorOutput, description=description)
            responses[status] = self._get_response_for_code(error, status, direction=direction)  # type: ignore[no-untyped-call]
        return dict(sorted(responses.items()))

    def _get_response_headers_for_code(self, status_code: str, direction: Any = "response") -> dict[str, Any]:
        if status_code == "429" and not self._rate_limited():
            return {}
        headers: dict[str, Any] = super()._get_response_headers_for_code(status_code, direction)
        return headers


# --- postprocessing hooks -----------------------------------------------------------------------------------


def inline_constants(result: dict[str, Any], generator: object, **kwargs: Any) -> dict[str, Any]:
    """Show each constant as a one-value enum in place (`"type": {"enum": ["buyer"]}`).

    Runs after spectacular's enum hook, which would otherwise make every constant a shared enum component
    with a made-up name.
    """
    _inline(result)
    return result


def _inline(node: object) -> None:
    if isinstance(node, dict):
        if CONSTANT_KEY in node:
            node["enum"] = [node.pop(CONSTANT_KEY)]
        for value in node.values():
            _inline(value)
    elif isinstance(node, list):
        for item in node:
            _inline(item)


def _future_expiry() -> str:
    """A card expiry date three years ahead, so the example never goes stale."""
    return f"12/{(date.today().year + 3) % 100:02d}"


# Field name -> an example a reader can use as it is: ISO codes, a documented test card (docs/test-cards.md), a
# future expiry. A component may have its own (`Component.field`). An example that does not fit a field's schema
# is left out, so one name can serve fields of different shapes.
EXAMPLES: dict[str, object] = {
    "amount": 1299,
    "currency": "USD",
    "country": "US",
    "country_code": "US",
    "seller_country": "US",
    "arrival_country": "GB",
    "departure_country": "US",
    "number": "4111111111111111",
    "expiration_date": _future_expiry(),
    "security_code": "123",
    "pin": "1234",
    "GiftCardCreateInputRequest.number": "4123450000000008",
    "GiftCardBalanceItemInputRequest.number": "4123450000000008",
    "GiftCardInputRequest.number": "4123450000000008",
    "display_name": "Grace Hopper",
    "first_name": "Grace",
    "last_name": "Hopper",
    "email_address": "grace@example.com",
    "phone_number": "+14155552671",
    "external_identifier": "buyer-12345",
    "buyer_external_identifier": "buyer-12345",
    "account_number": "ACC-0042",
    "line1": "1 Market Street",
    "line2": "Suite 300",
    "city": "San Francisco",
    "state": "California",
    "state_code": "US-CA",
    "postal_code": "94105",
    "house_number_or_name": "1",
    "organization": "Example Inc",
    "metadata": {"order_id": "12345"},
    "expires_in": 3600,
    "reason": "Returned by the buyer",
    "url": "https://merchant.example.com/webhooks",
    "StatementDescriptorRequest.url": "https://example.com",
    "StatementDescriptorRequest.name": "EXAMPLE STORE",
    "StatementDescriptorRequest.description": "Order 12345",
    "CartItemRequest.name": "Blue T-shirt",
    "sku": "TS-BLUE-M",
    "quantity": 1,
    "unit_amount": 1299,
    "version": "2.2.0",
    "eci": "05",
    "cavv": "AAABCZIhcQAAAABZlyFxAAAAAAA=",
    "directory_response": "C",
    "authentication_response": "Y",
    "directory_transaction_id": "c4e59ceb-a382-4d6a-bc87-385d591fa09d",
    "user_agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36",
    "accept_header": "text/html",
    "language": "en-US",
    "time_zone_offset": 0,
    "color_depth": 24,
    "screen_width": 1920,
    "screen_height": 1080,
    "departure_airport": "SFO",
    "arrival_airport": "LHR",
    "departure_city": "San Francisco",
    "arrival_city": "London",
    "carrier_code": "BA",
    "iata_designator": "BA",
    "icao_code": "BAW",
    "issuing_carrier_code": "BA",
    "issuing_iata_designator": "BA",
    "issuing_icao_code": "BAW",
    "flight_number": "286",
    "flight_class": "J",
    "seat_class": "J",
    "cavv_algorithm": "2",
    "passport_number": "123456789",
}


def add_examples(result: dict[str, Any], generator: object, **kwargs: Any) -> dict[str, Any]:
    """Give every request and response field `EXAMPLES` names (and every query parameter) its example, where it
    fits the field's schema, in place of the placeholders Swagger UI would make up (`"str"`, `"35/67"`)."""
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        for field_name, field_schema in (schema.get("properties") or {}).items():
            _set_example(field_schema, EXAMPLES.get(f"{name}.{field_name}", EXAMPLES.get(field_name)))
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query" and "example" not in parameter:
                    example = EXAMPLES.get(parameter["name"])
                    if example is not None and _fits(parameter.get("schema", {}), example):
                        parameter["example"] = example
    return result


def _set_example(schema: dict[str, Any], example: object) -> None:
    if example is None or "example" in schema or "$ref" in schema:
        return
    if _fits(schema, example):
        schema["example"] = example


def _fits(schema: dict[str, Any], example: object) -> bool:
    if "$ref" in schema or "allOf" in schema or "oneOf" in schema or "anyOf" in schema:
        return False
    return bool(jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).is_valid(example))


API_DESCRIPTION = """\
A self-hosted payments API, wire-compatible with the Gr4vy API for the resources it implements: the official
`gr4vy` SDKs work against it unchanged.

**Authentication.** Every call but Secure Fields carries `Authorization: Bearer <token>`, a JWT signed ES512 with
the private key of an API key; the server keeps only the public key. Create a key with
`manage.py create_api_key --merchant-account default --private-key-out key.pem`, then either let the SDK sign its
tokens (`Gr4vy(server_url=..., bearer_auth=auth.with_token(open("key.pem").read()), merchant_account_id="default")`)
or print one with `manage.py issue_token --private-key key.pem [--scopes buyers.read ...]` and paste it into
**Authorize**. A token's `scopes` claim decides what it may do: `<resource>.read` / `<resource>.write`, `*.read` /
`*.write`, and `embed` for the few calls a buyer's browser makes.

**Merchant accounts.** `x-gr4vy-merchant-account-id` names the merchant account a call acts for (`default` when
absent). Objects of other merchant accounts answer 404, exactly like missing ones.

**Errors.** Every error answers one JSON envelope, `{"type": "error", "code", "status", "message", "details"}`;
`details` points at each offending query parameter, header or body field. Every operation lists the errors it can
answer.

**Lists** answer `{"items", "limit", "next_cursor", "previous_cursor"}`: pass `cursor` to move between pages
(`limit` 1..100). **Money** is an integer in minor units with an ISO 4217 currency. The sandbox connector decides
payments from test card numbers such as `4111111111111111` (approved) and `4000000000000002` (declined)."""

BEARER_DESCRIPTION = """\
An ES512 JWT signed with an API key's private key, its `kid` header the key's RFC 7638 thumbprint and a `scopes`
claim. Get one with `manage.py issue_token --private-key key.pem` (after `manage.py create_api_key`), or let the
`gr4vy` SDK sign them: `auth.with_token(private_key_pem)`."""


def describe_api(result: dict[str, Any], generator: object, **kwargs: Any) -> dict[str, Any]:
    """The document's introduction and how to get a token, shown above the operations and in **Authorize**."""
    result["info"]["description"] = API_DESCRIPTION
    for scheme in result.get("components", {}).get("securitySchemes", {}).values():
        if scheme.get("scheme") == "bearer":
            scheme["description"] = BEARER_DESCRIPTION
    return result


def add_links(result: dict[str, Any], generator: object, **kwargs: Any) -> dict[str, Any]:
    """Link each create to the operations on what it created (`POST /buyers` 201 -> `GET /buyers/{buyer_id}`, with
    `buyer_id` taken from the answer's `id`), so a client, and a fuzzer, can follow them."""
    paths: dict[str, dict[str, Any]] = result.get("paths", {})
    for collection, operations in paths.items():
        created = operations.get("post", {}).get("responses", {}).get("201")
        if created is None:
            continue
        for path, others in paths.items():
            match = re.fullmatch(re.escape(collection) + r"/\{(\w+)\}(/.*)?", path)
            if not match:
                continue
            # The collection's own path parameters (`/transactions/{transaction_id}/refunds`) carry over.
            parameters = {name: f"$request.path.{name}" for name in re.findall(r"\{(\w+)\}", collection)}
            parameters[match[1]] = "$response.body#/id"
            for operation in others.values():
                created.setdefault("links", {})[operation["operationId"]] = {
                    "operationId": operation["operationId"],
                    "parameters": parameters,
                }
    return result
