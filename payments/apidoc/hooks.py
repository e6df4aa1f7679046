"""drf-spectacular's postprocessing hooks: constants inlined, examples placed where they fit, the API's
description, links."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import jsonschema  # drf-spectacular's own dependency (it validates documents with it)

from payments.rest.outputs import CONSTANT_KEY


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
    "passport_number": "123456789",
}


# Query parameters whose example differs from the body field of the same name: the `metadata` filter is the
# JSON text of an object (as the SDK sends it), where the body's `metadata` is the object itself.
QUERY_EXAMPLES: dict[str, object] = {"metadata": '{"order_id":"12345"}'}


def add_examples(result: dict[str, Any], generator: object, **kwargs: Any) -> dict[str, Any]:
    """Give every request and response field `EXAMPLES` names (and every query parameter) its example, where it
    fits the field's schema, in place of the placeholders Swagger UI would make up (`"str"`, `"35/67"`)."""
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        for field_name, field_schema in (schema.get("properties") or {}).items():
            _set_example(field_schema, EXAMPLES.get(f"{name}.{field_name}", EXAMPLES.get(field_name)))
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                unsupported = parameter.get("schema", {}).get("x-unsupported")  # as for fields: only null fits
                if parameter["in"] == "query" and "example" not in parameter and not unsupported:
                    example = QUERY_EXAMPLES.get(parameter["name"], EXAMPLES.get(parameter["name"]))
                    if example is not None and _fits(parameter.get("schema", {}), example):
                        parameter["example"] = example
    return result


def _set_example(schema: dict[str, Any], example: object) -> None:
    if example is None or "example" in schema or "$ref" in schema or schema.get("x-unsupported"):
        return  # an unsupported field takes only null (or the value that asks for nothing): no example to copy
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
`details` points at each offending query parameter, header or body field. A 400's `message` is always `Request
failed validation`, its own reason (if any) after a colon. Every operation lists the errors it can answer.

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
